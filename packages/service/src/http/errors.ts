import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, DependencyUnavailable, errors } from '../errors.js';

/**
 * Maps what reaches an error handler (our errors, framework errors of validation, body parsing and
 * multipart, unavailable dependencies) onto the catalogue in errors.ts.
 */
export function toAppError(err: FastifyError & { code?: string }): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof DependencyUnavailable)
    return err.dependency === 'database' ? errors.databaseUnavailable() : errors.storageUnavailable();
  if (hasZodFastifySchemaValidationErrors(err)) {
    const details = err.validation
      .map((v) => `${v.instancePath ? v.instancePath.slice(1).replaceAll('/', '.') : 'body'}: ${v.message}`)
      .join('; ');
    return errors.invalidRequest(`Invalid ${err.validationContext ?? 'request'}: ${details}`);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson(err.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedContentType('this content type', 'application/json');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return errors.unsupportedContentType('this content type', 'multipart/form-data');
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return errors.invalidJson(err.message);
  // Any other refusal by the framework is the request's fault: the catalogue's code for its kind.
  if (err.statusCode === 413) return errors.payloadTooLarge();
  if (err.statusCode === 415) return new AppError('unsupported_content_type', err.message);
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)
    return errors.invalidRequest(err.message);
  return errors.internal();
}
