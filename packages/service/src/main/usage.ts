/** `docslurp --help`: every command with its options, in one text. */
import { ACCOUNTS_USAGE } from './accounts.js';
import { EVAL_USAGE } from './eval.js';

export const USAGE = `Usage: docslurp <command> [options]

Commands:
  serve                  server and worker in one process; embedded PostgreSQL under DATA_DIR
                         unless DATABASE_URL is set (migrations are applied first)
  server                 the HTTP API only (needs DATABASE_URL)
  worker                 the document worker only (needs DATABASE_URL)
  migrate                apply database migrations and install the job engine's schema
  keys create --scopes ingest,search,artifacts[,admin,act-as] [--user EMAIL] [--name NAME]
              [--account ACCOUNT] [--json]
                         --user: the key acts exactly as that user (its role, what it may see)
  keys list [--account ACCOUNT] [--json]
  keys revoke <key id or prefix>
  users create --email EMAIL [--password PASSWORD | --password-stdin] [--role owner|admin|editor|reader]
               [--name NAME] [--group GROUP ...] [--account ACCOUNT] [--json]
                         role owner unless given; without a password, sign-in is through OIDC
  users list [--account ACCOUNT] [--json]
  groups create NAME | groups list | groups add-member GROUP EMAIL | groups remove-member GROUP EMAIL
                         [--account ACCOUNT] [--json]
  secrets rotate         re-encrypt stored credentials with ENCRYPTION_KEY (after moving the old key
                         to ENCRYPTION_KEY_PREVIOUS; see docs/security.md)
  bucket list            every object of the S3 bucket as JSON lines {"key","size"}
  bucket export DIR      copy the whole bucket into the empty folder DIR (backups)
  bucket import DIR      make the bucket an exact copy of DIR, creating it if missing (restores)
${ACCOUNTS_USAGE}
${EVAL_USAGE}
  openapi                print the API's OpenAPI document (as GET /openapi.json serves it; needs no
                         database), e.g. to generate a client

Configuration comes from environment variables; see the README's configuration table.`;
