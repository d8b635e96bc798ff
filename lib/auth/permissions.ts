// The one permission map (docs/design.md "Roles and permissions"). Every route handler and server
// action is checked against it on the server; the security suite generates its matrix from it.
export const ROLES = ['support', 'lead', 'auditor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

// 'team': only for sources of the actor's own team; 'all': every team.
export type Scope = 'team' | 'all';

export const PERMISSIONS = {
  'deadletters.read': { support: 'team', lead: 'team', auditor: 'all', admin: 'all' },
  'payload.reveal': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.redrive': { support: 'team', lead: 'team', admin: 'all' },
  // Edit a dead letter's payload and headers, or transform a selection, and redrive the copies;
  // a second person approves through redrive.approve.
  'deadletters.edit': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.archive': { support: 'team', lead: 'team', admin: 'all' },
  'deadletters.discard': { lead: 'team', admin: 'all' },
  'redrive.approve': { lead: 'team', admin: 'all' },
  // Redrive rules of a source: a standing order that starts redrives for its author.
  'redrive.rules': { lead: 'team', admin: 'all' },
  'sources.policy': { lead: 'team', admin: 'all' },
  // A connector source's import: test its connection, pause and resume it. An operational switch
  // in an incident, so the team's lead may use it; the connection itself stays admin.manage.
  'sources.import': { lead: 'team', admin: 'all' },
  // Merging two clusters into one (kept as an alias) is a lead's call: it changes what support sees as one cause.
  'clusters.merge': { lead: 'team', admin: 'all' },
  // Splitting a cluster by a field, and undoing a merge: the same kind of call, the other way.
  'clusters.split': { lead: 'team', admin: 'all' },
  // A source's grouping rules, and re-applying them to its open dead letters.
  'sources.grouping': { lead: 'team', admin: 'all' },
  // Ownership of a cause: assign a cluster, set its status (on hold, resolved…), its ticket, its notes.
  // Support works the inbox, so support may; the auditor only reads.
  'clusters.own': { support: 'team', lead: 'team', admin: 'all' },
  // Saved views: save, rename, share and delete one's own views of the pages one may open.
  // Every role may; sharing goes to the saver's own team only, so a teamless auditor or admin keeps
  // views private (lib/saved-views).
  'views.manage': { support: 'team', lead: 'team', auditor: 'all', admin: 'all' },
  'audit.read': { lead: 'team', auditor: 'all', admin: 'all' },
  'admin.manage': { admin: 'all' },
} as const satisfies Record<string, Partial<Record<Role, Scope>>>;

export type Permission = keyof typeof PERMISSIONS;

export function scopeFor(role: Role, permission: Permission): Scope | undefined {
  return (PERMISSIONS[permission] as Partial<Record<Role, Scope>>)[role];
}

export function can(role: Role, permission: Permission): boolean {
  return scopeFor(role, permission) !== undefined;
}

/**
 * What a person's assistant (a token with the assistant scope) never holds, whatever its user's
 * role: seeing masked values clear, and the second pair of eyes. `authorize` and `canReveal` refuse it.
 */
export const NEVER_FOR_ASSISTANT: ReadonlySet<Permission> = new Set<Permission>(['payload.reveal', 'redrive.approve']);

/**
 * A role that holds some permission only for its own team's sources (support, lead today): without a
 * team it sees nothing, so a user of that role must belong to one. Read from the map, so a new
 * team-scoped role needs no second list.
 */
export function isTeamScoped(role: Role): boolean {
  return (Object.keys(PERMISSIONS) as Permission[]).some((p) => scopeFor(role, p) === 'team');
}

// Where each role lands after sign-in.
export const HOME: Record<Role, string> = {
  support: '/inbox',
  lead: '/sla',
  auditor: '/audit',
  admin: '/admin',
};

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** Whether the permission covers a source of this team: any team with 'all', the actor's own with 'team'. */
export function canForTeam(actor: { role: Role; teamId: string | null }, permission: Permission, teamId: string): boolean {
  const scope = scopeFor(actor.role, permission);
  return scope === 'all' || (scope === 'team' && actor.teamId === teamId);
}
