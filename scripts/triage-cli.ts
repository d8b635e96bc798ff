// `npm run --silent triage -- <noun> <verb> [--flags]`: first setup and scripting, audited as the
// system actor. Calls the same lib/ functions as the admin pages.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser, findUserByEmail, updateUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken } from '@/lib/admin/tokens';
import { createSource } from '@/lib/sources/create-source';
import { closeDb } from '@/lib/db';
import { AppError } from '@/lib/errors';

const USAGE = `usage: triage <command> [--json]
  team create --name T
  user create --email E --role support|lead|auditor|admin [--team T] [--password P]
  user update --email E [--role R] [--team T] [--disabled true|false] [--password P]
  source create --name N --team T [--kind builtin|ingest]
  token create --source N        (prints an ingest token once)
  token create --user E          (a personal API token acting with that user's role)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    team: { type: 'string' },
    password: { type: 'string' },
    kind: { type: 'string' },
    source: { type: 'string' },
    user: { type: 'string' },
    disabled: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const actor = { ...SYSTEM, label: 'cli' };

function need(v: string | undefined, flag: string): string {
  if (!v) throw new AppError('bad_request', `--${flag} is required`);
  return v;
}

function out(human: string, data: Record<string, unknown>) {
  process.stdout.write(values.json ? JSON.stringify(data) + '\n' : human + '\n');
}

async function main(): Promise<void> {
  const [noun, verb] = positionals;
  if (values.help || !noun) {
    console.log(USAGE);
    return;
  }
  switch (`${noun} ${verb}`) {
    case 'team create': {
      const t = await createTeam(actor, { name: need(values.name, 'name') });
      return out(`team ${t.name} (${t.id})`, { id: t.id, name: t.name });
    }
    case 'user create': {
      const password = values.password ?? randomBytes(12).toString('base64url');
      const u = await createUser(actor, { email: need(values.email, 'email'), role: need(values.role, 'role') as never, team: values.team, password });
      return out(`user ${u.email} (${u.role})${values.password ? '' : ` password: ${password}`}`, {
        id: u.id,
        email: u.email,
        role: u.role,
        ...(values.password ? {} : { password }),
      });
    }
    case 'user update': {
      const u0 = await findUserByEmail(need(values.email, 'email'));
      if (!u0) throw new AppError('not_found', `No user ${values.email}`);
      const disabled = values.disabled === undefined ? undefined : values.disabled === 'true';
      const u = await updateUser(actor, u0.id, { role: values.role as never, team: values.team, disabled, password: values.password });
      return out(`user ${u.email} (${u.role}${u.disabled ? ', disabled' : ''})`, { id: u.id, email: u.email, role: u.role, disabled: u.disabled });
    }
    case 'source create': {
      const s = await createSource(actor, { name: need(values.name, 'name'), team: need(values.team, 'team'), kind: (values.kind ?? 'builtin') as never });
      return out(`source ${s.name} (${s.id})`, { id: s.id, name: s.name, kind: s.kind });
    }
    case 'token create': {
      if (values.source) {
        const t = await createIngestToken(actor, values.source);
        return out(t.token, { token: t.token, id: t.id });
      }
      if (values.user) {
        const t = await createPersonalToken(actor, values.user);
        return out(t.token, { token: t.token, id: t.id });
      }
      throw new AppError('bad_request', 'token create needs --source N or --user E');
    }
    default:
      throw new AppError('bad_request', `unknown command "${positionals.join(' ')}"\n${USAGE}`);
  }
}

main()
  .catch((e: unknown) => {
    const message =
      e instanceof AppError ? e.message : e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : String(e);
    if (values.json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
    else console.error(`triage: ${message}`);
    process.exitCode = e instanceof AppError || e instanceof ZodError ? 2 : 1;
  })
  .finally(() => closeDb());
