/**
 * The SDK declares the API's records again (it must not depend on the service). These assignments
 * hold those declarations to the response schemas the routes serialise with: each record must be
 * assignable both ways (the same fields, optionality and types), so `npm run typecheck` fails when
 * the two copies drift apart. Nothing here runs.
 */
import type { z } from 'zod';
import type * as Sdk from '../../../sdk/src/types.js';
import type * as Wire from '../../src/http/schemas.js';
import type * as SourceWire from '../../src/http/source-views.js';

type Sent<S extends z.ZodType> = z.output<S>;
declare function a<T>(): T;

export const sdkWorkspace: Sdk.Workspace = a<Sent<typeof Wire.Workspace>>();
export const wireWorkspace: Sent<typeof Wire.Workspace> = a<Sdk.Workspace>();
export const sdkWorkspaceSummary: Sdk.WorkspaceSummary = a<Sent<typeof Wire.WorkspaceWithCounts>>();
export const wireWorkspaceSummary: Sent<typeof Wire.WorkspaceWithCounts> = a<Sdk.WorkspaceSummary>();
export const sdkDocumentCounts: Sdk.DocumentCounts = a<Sent<typeof Wire.DocumentCounts>>();
export const wireDocumentCounts: Sent<typeof Wire.DocumentCounts> = a<Sdk.DocumentCounts>();
export const sdkRunFailure: Sdk.RunFailure = a<Sent<typeof Wire.RunFailure>>();
export const wireRunFailure: Sent<typeof Wire.RunFailure> = a<Sdk.RunFailure>();
export const sdkRun: Sdk.Run = a<Sent<typeof Wire.Run>>();
export const wireRun: Sent<typeof Wire.Run> = a<Sdk.Run>();
export const sdkRunProgress: Sdk.RunProgress = a<Sent<typeof Wire.RunProgress>>();
export const wireRunProgress: Sent<typeof Wire.RunProgress> = a<Sdk.RunProgress>();
export const sdkDocumentErrorOrNull: Sdk.DocumentError | null = a<Sent<typeof Wire.DocumentError>>();
export const wireDocumentErrorOrNull: Sent<typeof Wire.DocumentError> = a<Sdk.DocumentError | null>();
export const sdkDocument: Sdk.Document = a<Sent<typeof Wire.Document>>();
export const wireDocument: Sent<typeof Wire.Document> = a<Sdk.Document>();
export const sdkUploadResult: Sdk.UploadResult = a<Sent<typeof Wire.UploadResponse>>();
export const wireUploadResult: Sent<typeof Wire.UploadResponse> = a<Sdk.UploadResult>();
export const sdkReprocessResult: Sdk.ReprocessResult = a<Sent<typeof Wire.ReprocessResponse>>();
export const wireReprocessResult: Sent<typeof Wire.ReprocessResponse> = a<Sdk.ReprocessResult>();
export const sdkCitation: Sdk.Citation = a<Sent<typeof Wire.Citation>>();
export const wireCitation: Sent<typeof Wire.Citation> = a<Sdk.Citation>();
export const sdkSearchHit: Sdk.SearchHit = a<Sent<typeof Wire.SearchHit>>();
export const wireSearchHit: Sent<typeof Wire.SearchHit> = a<Sdk.SearchHit>();
export const sdkSearchResponse: Sdk.SearchResponse = a<Sent<typeof Wire.SearchResponse>>();
export const wireSearchResponse: Sent<typeof Wire.SearchResponse> = a<Sdk.SearchResponse>();
export const sdkAnswerCitation: Sdk.AnswerCitation = a<Sent<typeof Wire.AnswerCitation>>();
export const wireAnswerCitation: Sent<typeof Wire.AnswerCitation> = a<Sdk.AnswerCitation>();
export const sdkChatAnswer: Sdk.ChatAnswer = a<Sent<typeof Wire.ChatResponse>>();
export const wireChatAnswer: Sent<typeof Wire.ChatResponse> = a<Sdk.ChatAnswer>();
export const sdkAvailability: Sdk.Availability = a<Sent<typeof Wire.Availability>>();
export const wireAvailability: Sent<typeof Wire.Availability> = a<Sdk.Availability>();
export const sdkWorkspaceDeletion: Sdk.WorkspaceDeletion = a<Sent<typeof Wire.WorkspaceDeletion>>();
export const wireWorkspaceDeletion: Sent<typeof Wire.WorkspaceDeletion> = a<Sdk.WorkspaceDeletion>();
export const sdkFormats: Sdk.Formats = a<Sent<typeof Wire.Formats>>();
export const wireFormats: Sent<typeof Wire.Formats> = a<Sdk.Formats>();
export const sdkRefusedFile: Sdk.RefusedFile = a<Sent<typeof Wire.RefusedFile>>();
export const wireRefusedFile: Sent<typeof Wire.RefusedFile> = a<Sdk.RefusedFile>();
export const sdkWebhookEndpoint: Sdk.WebhookEndpoint = a<Sent<typeof Wire.WebhookEndpoint>>();
export const wireWebhookEndpoint: Sent<typeof Wire.WebhookEndpoint> = a<Sdk.WebhookEndpoint>();
export const sdkWebhookRunData: Sdk.WebhookRunData = a<Sent<typeof Wire.WebhookRunData>>();
export const wireWebhookRunData: Sent<typeof Wire.WebhookRunData> = a<Sdk.WebhookRunData>();
export const sdkWebhookDocumentData: Sdk.WebhookDocumentData = a<Sent<typeof Wire.WebhookDocumentData>>();
export const wireWebhookDocumentData: Sent<typeof Wire.WebhookDocumentData> = a<Sdk.WebhookDocumentData>();
export const sdkWebhookEvent: Sdk.WebhookEvent = a<Sent<typeof Wire.WebhookEvent>>();
export const wireWebhookEvent: Sent<typeof Wire.WebhookEvent> = a<Sdk.WebhookEvent>();
export const sdkWebhookAttempt: Sdk.WebhookAttempt = a<Sent<typeof Wire.WebhookAttempt>>();
export const wireWebhookAttempt: Sent<typeof Wire.WebhookAttempt> = a<Sdk.WebhookAttempt>();
export const sdkWebhookDelivery: Sdk.WebhookDelivery = a<Sent<typeof Wire.WebhookDelivery>>();
export const wireWebhookDelivery: Sent<typeof Wire.WebhookDelivery> = a<Sdk.WebhookDelivery>();
export const sdkSource: Sdk.Source = a<Sent<typeof SourceWire.Source>>();
export const wireSource: Sent<typeof SourceWire.Source> = a<Sdk.Source>();
export const sdkSourceType: Sdk.SourceTypeOffer = a<Sent<typeof SourceWire.SourceTypeOffer>>();
export const wireSourceType: Sent<typeof SourceWire.SourceTypeOffer> = a<Sdk.SourceTypeOffer>();
