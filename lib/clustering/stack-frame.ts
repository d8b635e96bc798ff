// The top in-app frame of a stack trace: the innermost frame that is the application's own code,
// as function and file, never the line (a line moves with every deploy; the function and file name
// the code site). Library and runtime frames are skipped (frame-libraries.ts, per runtime). Reads
// JS/Node, JVM (Java, Kotlin, Scala), Python, Go, .NET, Ruby, PHP, Rust and Elixir/Erlang traces;
// anything else yields no frame.

import {
  DOTNET_LIBRARY_PREFIXES,
  JVM_LIBRARY_PREFIXES,
  isBeamLibraryFrame,
  isGoLibraryFrame,
  isJsLibraryFile,
  isPhpLibraryFile,
  isPythonLibraryFile,
  isRubyLibraryFile,
  isRustLibraryFrame,
} from './frame-libraries';

export interface StackFrame {
  fn: string;
  file: string;
}

const MAX_STACK_CHARS = 8192;
const RS_LOCATION = /\.rs:\d/g;

/** Strips what changes between builds or calls but not between code sites. */
function normalizeFile(file: string): string {
  let f = file;
  if (f.includes('://')) f = f.replace(/^(?:file|webpack(?:-internal)?):\/\/\/?/, '');
  if (f.includes('?') || f.includes('#')) f = f.replace(/[?#].*$/, '');
  // Build hashes and chunk numbers (`main.3f9a1c2e.js`, `chunks/8734.js`) change with every build.
  if (/\d/.test(f)) f = f.replace(/[0-9a-f]{8,}/gi, '<*>').replace(/\d{3,}/g, '<*>');
  // Where the code is checked out differs between machines and deploys (/srv/app-v2/…, /tmp/x/…);
  // the last segments name the code site, so the same code keeps the same key everywhere.
  return f
    .split(/[/\\]/)
    .filter((segment) => segment.length > 0 && segment !== '.')
    .slice(-FILE_SEGMENTS)
    .join('/');
}

const FILE_SEGMENTS = 3;

function normalizeFn(fn: string): string {
  let f = fn;
  if (f.startsWith('async ')) f = f.slice(6);
  if (f.startsWith('new ')) f = f.slice(4);
  if (f.endsWith(']')) f = f.replace(/\s+\[as [^\]]*\]$/, '');
  // Lambdas and anonymous classes are numbered by the compiler (`lambda$onMessage$0`, `Foo$1`).
  if (f.includes('$')) f = f.replace(/\$\d+/g, '$<*>');
  return f.trim();
}

const frame = (fn: string, file: string): StackFrame => ({ fn: normalizeFn(fn), file: normalizeFile(file) });

/** Location `path:line:col` or `path:line` → `path`. */
const stripLineCol = (loc: string): string => loc.replace(/(?::\d+){1,2}$/, '');

/** Whether `name` is `Type.member`: a dot after its first character with no "/" after it, not last. */
function hasMemberDot(name: string): boolean {
  const dot = name.lastIndexOf('.', name.length - 2);
  return dot >= 1 && dot > name.lastIndexOf('/');
}

function parseAtLine(line: string): StackFrame | null {
  // Logback and friends append the jar: `Foo.bar(Foo.java:58) ~[app.jar:1.0]`
  const rest = line.endsWith(']') ? line.replace(/\s+~?\[[^\]]*\]$/, '') : line;
  // .NET: `Ns.Type.Method(args) in /src/File.cs:line 42`
  const dotnet = rest.includes(') in ') ? /^([^\s(]+)\(.*\)\s+in\s+(.+?)(?::line \d+)?$/.exec(rest) : null;
  if (dotnet) {
    const [, fn = '', file = ''] = dotnet;
    return DOTNET_LIBRARY_PREFIXES.some((p) => fn.startsWith(p)) ? null : frame(fn, file);
  }
  // JVM: `com.acme.Foo.bar(Foo.java:58)`, `java.base/java.lang.Thread.run(Thread.java:1583)`
  // Both JVM forms end in ")": a line that does not is not read by either pattern.
  const closed = rest.endsWith(')');
  const jvm = closed ? /^([\w$./<>-]+)\(([^()]*)\)$/.exec(rest) : null;
  if (jvm && !rest.includes(' ')) {
    const [, qualified = '', loc = ''] = jvm;
    // Drop the module or class loader: `java.base/…`, `app//…`.
    const fn = qualified.replace(/^[\w.@-]*\/\/?/, '');
    if (JVM_LIBRARY_PREFIXES.some((p) => fn.startsWith(p)) || DOTNET_LIBRARY_PREFIXES.some((p) => fn.startsWith(p))) {
      return null;
    }
    if (loc === 'Native Method' || loc === 'Unknown Source') return null;
    return frame(fn, loc.replace(/:\d+$/, ''));
  }
  // JVM without a location (`Foo.bar(Native Method)`), .NET without symbols (`Ns.Type.Method(String
  // key, Int32 n)`): a dotted name glued to its parentheses, where JS puts a space before them.
  // The name is matched whole (no class holds "("), then checked for a dot with a non-empty part
  // after it and no "/" in that part: one pattern with both would try every dot as the split.
  const bare = closed ? /^([A-Za-z_][\w$.`<>|[\],+/-]*)\(([^()]*)\)$/.exec(rest) : null;
  if (bare && hasMemberDot(bare[1]!)) {
    const [, qualified = '', args = ''] = bare;
    const fn = qualified.replace(/^[\w.@-]*\/\/?/, '');
    if (args === 'Native Method' || args === 'Unknown Source') return null;
    if (JVM_LIBRARY_PREFIXES.some((p) => fn.startsWith(p)) || DOTNET_LIBRARY_PREFIXES.some((p) => fn.startsWith(p))) {
      return null;
    }
    return frame(fn, '');
  }
  // JS: `fn (path:line:col)` or `path:line:col`
  let fn = '';
  let loc = rest;
  const open = rest.lastIndexOf(' (');
  if (rest.endsWith(')') && open > 0) {
    fn = rest.slice(0, open);
    loc = rest.slice(open + 2, -1);
  }
  const file = stripLineCol(loc.trim());
  if (isJsLibraryFile(file)) return null;
  return frame(fn, file);
}

/**
 * The top in-app frame of `stack`, or undefined when it has none (no stack, an unknown format, or
 * only library and runtime frames).
 */
export function topInAppFrame(stack: string | undefined | null): StackFrame | undefined {
  if (!stack) return undefined;
  const text = stack.length > MAX_STACK_CHARS ? stack.slice(0, MAX_STACK_CHARS) : stack;
  let python: StackFrame | undefined;
  let sawPython = false;
  // Lines are read one at a time: a JS or JVM trace usually answers on its second line.
  let lineStart = 0;
  let nextLine: string | undefined;
  const readLine = (): string | undefined => {
    if (nextLine !== undefined) {
      const line = nextLine;
      nextLine = undefined;
      return line;
    }
    if (lineStart > text.length) return undefined;
    let end = text.indexOf('\n', lineStart);
    if (end < 0) end = text.length;
    const line = text.slice(lineStart, end);
    lineStart = end + 1;
    return line;
  };
  const peekLine = (): string | undefined => (nextLine ??= readLine());
  let rustPanicAt: string | undefined;
  for (let line = readLine(); line !== undefined; line = readLine()) {
    const trimmed = line.trim();
    if (trimmed.length === 0) continue;

    // Python prints the outermost frame first: the innermost in-app frame is the last one.
    const py = trimmed.startsWith('File "') ? /^File "(.+?)", line \d+(?:, in (.+))?$/.exec(trimmed) : null;
    if (py) {
      sawPython = true;
      const [, file = '', fn = ''] = py;
      if (!isPythonLibraryFile(file)) python = frame(fn, file);
      continue;
    }
    if (sawPython) continue;
    // Rust: `  4: crate::module::function` then `at ./src/file.rs:42:18`, innermost first; the
    // panic's own location (`panicked at src/x.rs:4:5:`) stands in when no frame is the app's.
    const rs = /^\d+: (.+)$/.exec(trimmed);
    if (rs) {
      const fn = rs[1]!.replace(/::h[0-9a-f]{16}$/, '');
      const next = peekLine();
      const at = next === undefined ? null : /^\s+at (.+?)(?::\d+){1,2}$/.exec(next);
      if (at) readLine();
      const file = at?.[1] ?? '';
      if (!isRustLibraryFrame(fn, file)) return frame(fn, file);
      continue;
    }
    if (rustPanicAt === undefined && trimmed.includes(' panicked at ')) {
      // The first " panicked at " and the first ".rs:<digit>" after it: searching from every
      // occurrence would read the rest of the line for each.
      const from = trimmed.indexOf(' panicked at ') + 13;
      RS_LOCATION.lastIndex = from + 1;
      const rs = RS_LOCATION.exec(trimmed);
      const file = rs ? trimmed.slice(from, rs.index + 3) : '';
      if (rs && !/[\r\u2028\u2029]/.test(file)) rustPanicAt = file;
    }
    // Elixir/Erlang: `(app 1.2.0) lib/app/orders.ex:42: App.Orders.place/1`, or without the app.
    const ex = trimmed.includes('.ex') || trimmed.includes('.erl') ? /^(?:\(([\w-]+)(?: [^)]*)?\) )?(\S+\.(?:exs?|erl)):\d+: (.+)$/.exec(trimmed) : null;
    if (ex) {
      const [, app = '', file = '', fn = ''] = ex;
      if (!isBeamLibraryFrame(app, file, fn)) return frame(fn, file);
      continue;
    }

    if (trimmed.startsWith('at ')) {
      const parsed = parseAtLine(trimmed.slice(3).trim());
      if (parsed) return parsed;
      continue;
    }
    // Go: `pkg.(*Type).Method(...)` then `\t/path/file.go:77 +0xa82`
    if (trimmed.endsWith(')') && !trimmed.startsWith('created by')) {
      const next = peekLine();
      if (next !== undefined && /^\s+\S+\.go:\d+/.test(next)) {
        readLine();
        const fn = trimmed.replace(/\([^()]*\)$/, '');
        const file = next.trim().replace(/:\d+.*$/, '');
        if (!isGoLibraryFrame(fn, file)) return frame(fn, file);
        continue;
      }
    }
    // Ruby: `app/models/user.rb:12:in 'save'` (or `from …`)
    // Only a line that ends in a quote: else each ":1:in '" would be tried to the end of the line.
    const rb = trimmed.includes(':in ') && trimmed.endsWith("'") ? /^(?:from\s+)?(.+?):\d+:in [`'](.+)'$/.exec(trimmed) : null;
    if (rb) {
      const [, file = '', fn = ''] = rb;
      if (!isRubyLibraryFile(file)) return frame(fn, file);
      continue;
    }
    // PHP: `#0 /app/src/Foo.php(12): App\Foo->bar()`
    const php = trimmed.startsWith('#') ? /^#\d+\s+(.+?)\(\d+\):\s+(.+?)\(/.exec(trimmed) : null;
    if (php) {
      const [, file = '', fn = ''] = php;
      if (!isPhpLibraryFile(file)) return frame(fn, file);
    }
  }
  if (python) return python;
  return rustPanicAt !== undefined && !isRustLibraryFrame('', rustPanicAt) ? frame('', rustPanicAt) : undefined;
}
