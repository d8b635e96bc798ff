// Second stage of clustering, over a set of templates rather than one message: merges templates
// that differ only at positions proven variable, which the one-message fingerprint cannot know (a
// country code, a user name, a program name: words with no digit that still vary).
//
// Templates are grouped by error type and top frame, then by token count. Within such a set, a
// family of templates that differ in one column only is merged when the column is proven variable
// within the family: one of its values holds a mask (the fingerprint saw that position vary: `user
// <*>` beside `user admin`), or it holds at least `minDistinctValues` distinct words; a column
// holding a code (`503`, `ECONNREFUSED`, `ER_LOCK_WAIT_TIMEOUT`) never is. Merging runs to a fixed
// point (as in Drain and Brain, a position's variability is judged among templates that agree
// everywhere else), then a template still alone joins the most specific merged pattern it fits,
// where a mask may stand for several tokens (`chrome.exe *64` where `chrome.exe` was seen). A
// cluster's key hashes its pattern with runs of masks collapsed, the way the fingerprint collapses
// them, so an unmerged template keeps its fingerprint key and patterns of different lengths that
// collapse alike are one cluster.
//
// Deterministic and independent of arrival order: the clusters of a (type, frame) group are a
// function of its set of templates.
//
// At ingest the fingerprint key is what a dead letter is stored under. This merger maps fingerprint
// keys onto cluster keys and can be fed incrementally (`assign`); a mapping can change when new
// evidence arrives (a fourth distinct value proves a column variable), so the product keeps the
// mapping as data and re-reads it rather than rewriting dead letters.

import { clusterKey, type Fingerprint } from './fingerprint';
import { MASK } from './mask-message';
import type { StackFrame } from './stack-frame';

export interface TemplateEntry {
  type?: string | null;
  template: Fingerprint['template'];
  topFrame?: StackFrame;
}

export interface MergedCluster {
  key: string;
  type: string;
  /** The merged template: positions that vary between the member templates are `<*>`. */
  template: string;
  topFrame?: StackFrame;
  /** The member templates with their own (ingest) keys and counts. */
  members: { key: string; template: string; count: number }[];
  count: number;
}

export interface TemplateMergerOptions {
  /** Distinct words that prove a column variable without a mask among them (default 4). */
  minDistinctValues?: number;
}

interface TemplateRecord {
  group: Group;
  tokens: string[];
  template: string;
  key: string;
  count: number;
  clusterKey: string;
}

interface Cluster {
  key: string;
  template: string;
  members: TemplateRecord[];
}

interface Group {
  type: string;
  topFrame?: StackFrame;
  templates: TemplateRecord[];
  dirty: boolean;
  clusters: Cluster[];
}

/** A cluster being formed: its pattern and its member templates. */
interface Draft {
  tokens: string[];
  members: TemplateRecord[];
  /** Whether the pattern masks a position proven variable by a merge. */
  merged: boolean;
}

const DEFAULT_MIN_DISTINCT_VALUES = 4;
/** Distinct words that prove a column variable among templates of one code site. */
const FRAMED_MIN_DISTINCT_VALUES = 3;
/**
 * Words a family must share before a count of distinct values alone proves a column variable:
 * in `cupsd startup succeeded` / `klogd startup succeeded` the varying word is the event.
 */
const MIN_LITERALS_FOR_COUNT = 3;
/** Longest shared prefix and suffix, in tokens, that a variable run of varying length is looked for between. */
const MAX_SPAN_PREFIX = 8;
const MAX_SPAN_SUFFIX = 4;

/** A token that names a cause even where other templates have other tokens. */
function isCodeToken(token: string): boolean {
  const core = token.replace(/^\W+|\W+$/g, '');
  return /^\d+$/.test(core) || /^E[A-Z]{3,}$/.test(core) || /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(core);
}

/** A mask with at most punctuation around it (`<*>,`, `(<*>)`): the whole value was variable. */
function isWholeMask(token: string): boolean {
  const at = token.indexOf(MASK);
  if (at < 0) return false;
  return /^[^\w<]*$/.test(token.slice(0, at)) && /^[^\w<]*$/.test(token.slice(at + MASK.length));
}

/** Tokens of a pattern outside column `j` that are words, not masks. */
function literalWords(tokens: string[], j: number): number {
  let n = 0;
  for (let i = 0; i < tokens.length; i++) if (i !== j && !tokens[i]!.includes(MASK)) n++;
  return n;
}

/** Values of one `key=value` pair (`restartSteps=foxtrot`, `restartSteps=india`): the value is a variable. */
function sameKey(values: Set<string>): boolean {
  let key: string | undefined;
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0 || eq === v.length - 1) return false;
    const k = v.slice(0, eq + 1);
    if (key === undefined) key = k;
    else if (k !== key) return false;
  }
  return key !== undefined;
}

/** `a, b, c`: items of one token each, more than one of them. */
function isList(tokens: string[]): boolean {
  if (tokens.length < 2) return false;
  for (let i = 0; i < tokens.length - 1; i++) if (!tokens[i]!.endsWith(',')) return false;
  return !tokens[tokens.length - 1]!.endsWith(',');
}

/** Runs of masks collapsed into one, as the fingerprint does. */
function collapse(tokens: string[]): string {
  const out: string[] = [];
  for (const t of tokens) if (!(t === MASK && out[out.length - 1] === MASK)) out.push(t);
  return out.join(' ');
}

/** Whether `pattern` matches `tokens`, each mask standing for one or more tokens. */
function matchesSpanning(pattern: string[], tokens: string[]): boolean {
  // reachable[i]: the pattern prefix read so far can end just before tokens[i].
  let reachable = new Array<boolean>(tokens.length + 1).fill(false);
  reachable[0] = true;
  for (const p of pattern) {
    const next = new Array<boolean>(tokens.length + 1).fill(false);
    let open = false;
    for (let i = 0; i < tokens.length; i++) {
      if (p === MASK) {
        open = open || reachable[i]!;
        if (open && !isCodeToken(tokens[i]!)) next[i + 1] = true;
        else open = false;
      } else if (reachable[i] && tokens[i] === p) {
        next[i + 1] = true;
      }
    }
    reachable = next;
  }
  return reachable[tokens.length]!;
}

const single = (t: TemplateRecord): Draft => ({ tokens: t.tokens, members: [t], merged: false });

const byPattern = (a: Draft, b: Draft): number => {
  const x = a.tokens.join(' ');
  const y = b.tokens.join(' ');
  return x < y ? -1 : x > y ? 1 : 0;
};

export class TemplateMerger {
  private readonly minDistinctValues: number;
  private readonly groups = new Map<string, Group>();
  private readonly records = new Map<string, TemplateRecord>();
  private readonly handles: TemplateRecord[] = [];
  private readonly handleOf = new Map<TemplateRecord, number>();

  constructor(options: TemplateMergerOptions = {}) {
    this.minDistinctValues = options.minDistinctValues ?? DEFAULT_MIN_DISTINCT_VALUES;
  }

  /** Records one occurrence of a template; returns a handle for `clusterKeyOf`. */
  add(entry: TemplateEntry): number {
    const type = entry.type?.trim() ?? '';
    const groupId = entry.topFrame ? `${type}\u0001${entry.topFrame.fn}\u0001${entry.topFrame.file}` : type;
    const recordId = `${groupId}\u0002${entry.template}`;
    let record = this.records.get(recordId);
    if (!record) {
      let group = this.groups.get(groupId);
      if (!group) {
        group = { type, templates: [], dirty: true, clusters: [] };
        if (entry.topFrame) group.topFrame = entry.topFrame;
        this.groups.set(groupId, group);
      }
      const key = clusterKey(type, entry.template, entry.topFrame);
      const tokens = entry.template.length === 0 ? [] : entry.template.split(' ');
      record = { group, tokens, template: entry.template, key, count: 0, clusterKey: key };
      group.templates.push(record);
      group.dirty = true;
      this.records.set(recordId, record);
      this.handleOf.set(record, this.handles.length);
      this.handles.push(record);
    }
    record.count++;
    return this.handleOf.get(record)!;
  }

  /** The current cluster key of a template added earlier. */
  clusterKeyOf(handle: number): string {
    const record = this.handles[handle];
    if (!record) throw new RangeError(`unknown template handle ${handle}`);
    this.settle(record.group);
    return record.clusterKey;
  }

  /** Adds one occurrence and returns its current cluster key (the incremental use). */
  assign(entry: TemplateEntry): string {
    return this.clusterKeyOf(this.add(entry));
  }

  /** All clusters, largest first. */
  clusters(): MergedCluster[] {
    const all: MergedCluster[] = [];
    for (const group of this.groups.values()) {
      this.settle(group);
      for (const c of group.clusters) {
        const cluster: MergedCluster = {
          key: c.key,
          type: group.type,
          template: c.template,
          members: c.members.map((m) => ({ key: m.key, template: m.template, count: m.count })),
          count: c.members.reduce((sum, m) => sum + m.count, 0),
        };
        if (group.topFrame) cluster.topFrame = group.topFrame;
        all.push(cluster);
      }
    }
    return all.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  }

  private settle(group: Group): void {
    if (!group.dirty) return;
    group.dirty = false;
    // Words seen varying in one family are variable wherever they occur in this group: a second
    // round lets a rare event borrow that evidence (`putty.exe`, proven a program name elsewhere).
    const variableWords = new Set<string>();
    let drafts: Draft[] = [];
    for (let round = 0; round < 2; round++) {
      const byWidth = new Map<number, Draft[]>();
      for (const d of round === 0 ? group.templates.map(single) : drafts) {
        const same = byWidth.get(d.tokens.length);
        if (same) same.push(d);
        else byWidth.set(d.tokens.length, [d]);
      }
      drafts = [];
      for (const width of [...byWidth.keys()].sort((a, b) => a - b)) {
        drafts.push(...this.mergeFamilies(byWidth.get(width)!.sort(byPattern), variableWords, group.topFrame !== undefined));
      }
    }
    drafts = this.mergeSpans(drafts.sort(byPattern), group.topFrame !== undefined);
    const clusters = new Map<string, Cluster>();
    for (const draft of this.absorb(drafts)) {
      const template = collapse(draft.tokens);
      const cluster = clusters.get(template);
      if (cluster) cluster.members.push(...draft.members);
      else clusters.set(template, { key: clusterKey(group.type, template, group.topFrame), template, members: [...draft.members] });
    }
    group.clusters = [...clusters.values()];
    for (const c of group.clusters) for (const m of c.members) m.clusterKey = c.key;
  }

  /** Merges families of same-width drafts that differ in one proven-variable column, to a fixed point. */
  private mergeFamilies(start: Draft[], variableWords: Set<string>, framed: boolean): Draft[] {
    let drafts = start;
    if (drafts.length < 2) return drafts;
    const width = drafts[0]!.tokens.length;
    drafts = this.mergeVariedColumns(drafts, variableWords);
    for (let changed = true; changed; ) {
      changed = false;
      for (let j = 0; j < width; j++) {
        const families = new Map<string, Draft[]>();
        for (const d of drafts) {
          const skeleton = d.tokens.map((t, i) => (i === j ? '' : t)).join('\u0003');
          const family = families.get(skeleton);
          if (family) family.push(d);
          else families.set(skeleton, [d]);
        }
        if (families.size === drafts.length) continue;
        const next: Draft[] = [];
        for (const family of families.values()) {
          const values = family.map((d) => d.tokens[j]!);
          if (family.length < 2 || !this.isVariableColumn(values, literalWords(family[0]!.tokens, j), variableWords, framed)) {
            next.push(...family);
            continue;
          }
          for (const v of values) if (!v.includes(MASK)) variableWords.add(v);
          const tokens = [...family[0]!.tokens];
          tokens[j] = MASK;
          next.push({ tokens, members: family.flatMap((d) => d.members), merged: true });
          changed = true;
        }
        drafts = next;
      }
    }
    return drafts;
  }

  /**
   * Several columns at once, when one column cannot be isolated: `booking <*> not found for
   * passenger <*> <*>` has three words with no digit that vary together, so no two templates agree
   * everywhere but one column. A column is varied in a width class when most of its templates have
   * their own value there (at least `minDistinctValues`, at least half the templates) and none is a
   * code; templates that agree outside the varied columns merge when each column that differs
   * among them holds at least `minDistinctValues` values there too, given at least
   * MIN_LITERALS_FOR_COUNT words outside them and no fewer words than masked columns.
   */
  private mergeVariedColumns(drafts: Draft[], variableWords: Set<string>): Draft[] {
    const n = drafts.length;
    if (n < this.minDistinctValues) return drafts;
    const width = drafts[0]!.tokens.length;
    const varied = new Set<number>();
    for (let j = 0; j < width; j++) {
      const values = new Set<string>();
      let code = false;
      for (const d of drafts) {
        const v = d.tokens[j]!;
        if (isCodeToken(v)) {
          code = true;
          break;
        }
        values.add(v);
      }
      if (!code && values.size >= this.minDistinctValues && values.size * 2 >= n) varied.add(j);
    }
    if (varied.size < 2) return drafts;
    const families = new Map<string, Draft[]>();
    for (const d of drafts) {
      const skeleton = d.tokens.map((t, i) => (varied.has(i) ? '' : t)).join('\u0003');
      const family = families.get(skeleton);
      if (family) family.push(d);
      else families.set(skeleton, [d]);
    }
    if (families.size === drafts.length) return drafts;
    const next: Draft[] = [];
    for (const family of families.values()) {
      const first = family[0]!.tokens;
      const differing = [...varied].filter((j) => family.some((d) => d.tokens[j] !== first[j]));
      let literals = 0;
      for (let i = 0; i < width; i++) if (!varied.has(i) && !first[i]!.includes(MASK)) literals++;
      const spread = differing.every((j) => new Set(family.map((d) => d.tokens[j])).size >= this.minDistinctValues);
      if (!spread || literals < MIN_LITERALS_FOR_COUNT || literals < differing.length) {
        next.push(...family);
        continue;
      }
      const tokens = [...first];
      for (const j of differing) {
        tokens[j] = MASK;
        for (const d of family) if (!d.tokens[j]!.includes(MASK)) variableWords.add(d.tokens[j]!);
      }
      next.push({ tokens, members: family.flatMap((d) => d.members), merged: true });
    }
    return next;
  }

  /**
   * Variable parts of varying length (a list of validation errors, of unknown fields, of known
   * properties): drafts that share a prefix and a suffix, with at least `minDistinctValues`
   * different middles of at least two lengths and no code among them, merge into `prefix <*>
   * suffix`. Within one error type and code site that is evidence enough; without a frame, the
   * middles must also be lists of one-token items (`email, city, phone`), most of more than one,
   * so that `Failed password for root` and `Failed password for invalid user <*>` stay two events,
   * and so do clauses after a comma (`socket to <*>, Link has been severed`).
   */
  private mergeSpans(drafts: Draft[], framed: boolean): Draft[] {
    if (drafts.length < this.minDistinctValues) return drafts;
    const buckets = new Map<string, { prefix: number; suffix: number; members: Draft[] }>();
    for (const d of drafts) {
      const t = d.tokens;
      for (let p = 1; p <= Math.min(MAX_SPAN_PREFIX, t.length - 1); p++) {
        const head = t.slice(0, p).join('\u0003');
        for (let q = 0; q <= Math.min(MAX_SPAN_SUFFIX, t.length - p - 1); q++) {
          const key = `${p}\u0004${q}\u0004${head}\u0004${t.slice(t.length - q).join('\u0003')}`;
          const bucket = buckets.get(key);
          if (bucket) bucket.members.push(d);
          else buckets.set(key, { prefix: p, suffix: q, members: [d] });
        }
      }
    }
    const candidates = [...buckets.values()]
      .filter((b) => b.members.length >= this.minDistinctValues)
      .sort((a, b) => b.members.length - a.members.length || b.prefix + b.suffix - (a.prefix + a.suffix));
    if (candidates.length === 0) return drafts;
    const taken = new Set<Draft>();
    const merged: Draft[] = [];
    for (const b of candidates) {
      const members = b.members.filter((d) => !taken.has(d));
      if (members.length < this.minDistinctValues) continue;
      const first = members[0]!.tokens;
      let literals = 0;
      for (let i = 0; i < b.prefix; i++) if (!first[i]!.includes(MASK)) literals++;
      for (let i = first.length - b.suffix; i < first.length; i++) if (!first[i]!.includes(MASK)) literals++;
      if (literals < 2) continue;
      const lengths = new Set<number>();
      const middles = new Set<string>();
      let lists = 0;
      let code = false;
      for (const d of members) {
        const middle = d.tokens.slice(b.prefix, d.tokens.length - b.suffix);
        if (middle.some(isCodeToken)) {
          code = true;
          break;
        }
        lengths.add(middle.length);
        middles.add(middle.join(' '));
        if (isList(middle)) lists++;
      }
      if (code || lengths.size < 2 || middles.size < this.minDistinctValues || (!framed && lists * 2 < members.length)) continue;
      for (const d of members) taken.add(d);
      const tokens = [...first.slice(0, b.prefix), MASK, ...first.slice(first.length - b.suffix)];
      merged.push({ tokens, members: members.flatMap((d) => d.members), merged: true });
    }
    return merged.length === 0 ? drafts : [...drafts.filter((d) => !taken.has(d)), ...merged];
  }

  /**
   * Whether column values that differ within a family prove the column variable. `literals`, the
   * family's words outside the column, must be at least one (MIN_LITERALS_FOR_COUNT when the only
   * evidence is the count of distinct values), so that short messages (`active`, `blocked`, …) and
   * `boot (command <*>)` beside `halt (command <*>)` stay apart.
   */
  private isVariableColumn(values: string[], literals: number, variableWords: Set<string>, framed: boolean): boolean {
    const distinct = new Set(values);
    if (distinct.size === 1) return true;
    if (literals === 0) return false;
    // `key=` values: one of them masked, or as many words as any column needs (`user=root`,
    // `user=guest` and `user=test` may be three accounts the message is about).
    let masked =
      sameKey(distinct) &&
      (distinct.size >= (framed ? FRAMED_MIN_DISTINCT_VALUES : this.minDistinctValues) ||
        [...distinct].some((v) => v.slice(v.indexOf('=') + 1).includes(MASK)));
    let known = true;
    let codes = 0;
    for (const v of distinct) if (isCodeToken(v)) codes++;
    // A column of codes names causes; a code-shaped value among many others (`EBATDEBB` among
    // bank codes) is one more value.
    if (codes > 0 && (codes * 2 >= distinct.size || distinct.size < 2 * this.minDistinctValues)) return false;
    for (const v of distinct) {
      if (isCodeToken(v)) continue;
      // A mask proves the column variable when it is the whole token or sits in a path; a token
      // that merely holds a masked part (`LOGIN(uid=<*>)` beside `(uid=<*>)`) proves nothing.
      if (isWholeMask(v) || (v.includes(MASK) && v.includes('/'))) masked = true;
      else if (!variableWords.has(v)) known = false;
    }
    // Within one code site (same type and top frame) fewer values suffice: the site prints one
    // message with a value in it, it does not choose among events.
    const enough = framed ? FRAMED_MIN_DISTINCT_VALUES : this.minDistinctValues;
    return masked || known || (literals >= MIN_LITERALS_FOR_COUNT && distinct.size >= enough);
  }

  /**
   * A template no merge reached joins the most specific merged pattern that matches it, a mask
   * standing for one or more tokens. Patterns must keep at least as many words as masks, so that a
   * pattern made mostly of masks does not swallow unrelated templates.
   */
  private absorb(drafts: Draft[]): Draft[] {
    const masks = (tokens: string[]): number => tokens.reduce((n, t) => n + (t === MASK ? 1 : 0), 0);
    const patterns = drafts
      .filter((d) => d.merged && d.tokens.length >= 2 * masks(d.tokens))
      .sort((a, b) => masks(a.tokens) - masks(b.tokens) || a.tokens.length - b.tokens.length);
    if (patterns.length === 0) return drafts;
    const kept: Draft[] = [];
    for (const d of drafts) {
      const host = d.merged ? undefined : patterns.find((p) => matchesSpanning(p.tokens, d.tokens));
      if (host) host.members.push(...d.members);
      else kept.push(d);
    }
    return kept;
  }
}
