import { PgAccountRepository } from './accounts.js';
import { PgAuditRepository } from './audit.js';
import type { Pool } from './db.js';
import { PgWorkspaceDeletionRepository } from './deletions.js';
import { PgDocumentRepository } from './documents.js';
import { PgEvaluationRepository } from './evaluations.js';
import { PgGroupRepository } from './groups.js';
import { PgLeaseRepository } from './leases.js';
import { PgOpsRepository } from './operations.js';
import { PgQuestionSetRepository } from './question-sets.js';
import { PgQuotaRepository } from './quotas.js';
import { PgRunRepository } from './runs.js';
import { PgSourceRepository } from './sources.js';
import { PgUserRepository } from './users.js';
import { PgWebhookRepository } from './webhooks.js';
import { PgWorkRepository } from './work.js';
import { PgWorkspaceRepository } from './workspaces.js';

/** The service database's repositories, one per aggregate, sharing one connection pool. */
export interface Repositories {
  accounts: PgAccountRepository;
  workspaces: PgWorkspaceRepository;
  deletions: PgWorkspaceDeletionRepository;
  runs: PgRunRepository;
  documents: PgDocumentRepository;
  work: PgWorkRepository;
  users: PgUserRepository;
  groups: PgGroupRepository;
  audit: PgAuditRepository;
  ops: PgOpsRepository;
  webhooks: PgWebhookRepository;
  sources: PgSourceRepository;
  leases: PgLeaseRepository;
  questionSets: PgQuestionSetRepository;
  evaluations: PgEvaluationRepository;
  quotas: PgQuotaRepository;
}

export function createRepositories(pool: Pool): Repositories {
  return {
    accounts: new PgAccountRepository(pool),
    workspaces: new PgWorkspaceRepository(pool),
    deletions: new PgWorkspaceDeletionRepository(pool),
    runs: new PgRunRepository(pool),
    documents: new PgDocumentRepository(pool),
    work: new PgWorkRepository(pool),
    users: new PgUserRepository(pool),
    groups: new PgGroupRepository(pool),
    audit: new PgAuditRepository(pool),
    ops: new PgOpsRepository(pool),
    webhooks: new PgWebhookRepository(pool),
    sources: new PgSourceRepository(pool),
    leases: new PgLeaseRepository(pool),
    questionSets: new PgQuestionSetRepository(pool),
    evaluations: new PgEvaluationRepository(pool),
    quotas: new PgQuotaRepository(pool),
  };
}
