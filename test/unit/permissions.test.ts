import { describe, expect, it } from 'vitest';
import { HOME, PERMISSIONS, ROLES, can, scopeFor } from '@/lib/auth/permissions';

// docs/design.md "Roles and permissions", written out once more as the product's promise.
const TABLE: Record<string, Record<string, string | undefined>> = {
  'deadletters.read': { support: 'team', lead: 'team', auditor: 'all', admin: 'all' },
  'payload.reveal': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.redrive': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.archive': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.discard': { lead: 'team', admin: 'all' },
  'sources.policy': { lead: 'team', admin: 'all' },
  'sources.import': { lead: 'team', admin: 'all' },
  'clusters.merge': { lead: 'team', admin: 'all' },
  'audit.read': { lead: 'team', auditor: 'all', admin: 'all' },
  'views.manage': { support: 'team', lead: 'team', auditor: 'all', admin: 'all' },
  'admin.manage': { admin: 'all' },
};

describe('permission map', () => {
  it.each(Object.keys(TABLE))('%s matches the design table for every role', (perm) => {
    for (const role of ROLES) expect(scopeFor(role, perm as keyof typeof PERMISSIONS)).toBe(TABLE[perm]![role]);
  });

  // Saved views are the auditor's own navigation (the issue asks for audit-trail views), not a
  // change to dead letters, sources or the trail; an auditor without a team shares none.
  it('auditors change nothing but their own saved views', () => {
    const mutating = Object.keys(PERMISSIONS).filter((p) => !['deadletters.read', 'audit.read', 'views.manage'].includes(p));
    for (const p of mutating) expect(can('auditor', p as keyof typeof PERMISSIONS)).toBe(false);
  });

  it('sends each role to its home', () => {
    expect(HOME).toEqual({ support: '/inbox', lead: '/sla', auditor: '/audit', admin: '/admin' });
  });
});
