/**
 * A walk through the service's code from V8's precise coverage (bench/walk.ts, bench/upload-walk.ts):
 * the source files and named functions that ran, their calls, by source folder, and the calls of
 * the functions asked after by name.
 */

/** What `Profiler.takePreciseCoverage` answers with `callCount: true`, the parts read here. */
export type Coverage = { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];

const SOURCE = '/packages/service/src/';

export function walkOf(result: Coverage, named: readonly string[] = []) {
  const files = new Set<string>();
  /** Functions and calls by the source folder they are in (the pipeline is `processing`). */
  const byFolder: Record<string, { functions: number; calls: number }> = {};
  const callsOf: Record<string, number> = Object.fromEntries(named.map((f) => [f, 0]));
  let functions = 0;
  let calls = 0;
  for (const script of result) {
    const at = script.url.indexOf(SOURCE);
    if (at < 0) continue;
    for (const f of script.functions) {
      const count = f.ranges[0]?.count ?? 0;
      // The module's own top level is the file being there, not a function it calls.
      if (count === 0 || f.functionName === '') continue;
      functions++;
      calls += count;
      if (f.functionName in callsOf) callsOf[f.functionName]! += count;
      const file = script.url.slice(at + SOURCE.length);
      files.add(file);
      const folder = file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)';
      byFolder[folder] ??= { functions: 0, calls: 0 };
      byFolder[folder].functions++;
      byFolder[folder].calls += count;
    }
  }
  return { files: files.size, functions, calls, byFolder, callsOf, fileList: [...files].sort() };
}
