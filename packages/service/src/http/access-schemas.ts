import { z } from 'zod';

/** Access lists as the API shows them (ids) and takes them (ids, e-mails, group names): decision 0017. */

export const Grants = z
  .object({
    users: z.array(z.string()).describe('User ids'),
    groups: z.array(z.string()).describe('Group ids'),
  })
  .meta({ id: 'Grants' });

export const WorkspaceAccess = z
  .object({
    read: Grants.describe('Who may search and read it'),
    edit: Grants.describe('Who may also change it (editors among them; they read it too)'),
  })
  .nullable()
  .describe('Null: the whole account; owners and admins see every workspace')
  .meta({ id: 'WorkspaceAccess' });

export const DocumentAccess = z
  .object({
    users: z.array(z.string()).describe('User ids'),
    groups: z.array(z.string()).describe('Group ids'),
  })
  .nullable()
  .describe("Null: its workspace's readers; else those of them listed here")
  .meta({ id: 'DocumentAccess' });

const NAMES_MAX = 1000;
export const GrantsInput = z
  .object({
    users: z
      .array(z.string().min(1).max(320))
      .max(NAMES_MAX)
      .optional()
      .describe('User ids or e-mail addresses'),
    groups: z.array(z.string().min(1).max(200)).max(NAMES_MAX).optional().describe('Group ids or names'),
  })
  .strict();

export const WorkspaceAccessInput = z
  .object({ read: GrantsInput.optional(), edit: GrantsInput.optional() })
  .strict()
  .nullable()
  .describe('Who may read and who may edit it; null opens it to the whole account');

export const DocumentAccessInput = GrantsInput.nullable().describe(
  "Who of the workspace's readers may read it; null for all of them",
);
