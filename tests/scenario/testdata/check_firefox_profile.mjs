// Loads a Firefox Profiler processed profile with the Firefox Profiler's own code (the
// vendored @firefox-devtools/profiler-cli bundle: the profiler's format detection,
// processed-profile upgraders, redux store and call-tree selectors) and compares what
// the profiler computed with what the file says, per thread: the thread count and
// names, the sample count, the call tree's root total (samples with a stack), and no
// function the profiler names "undefined"/"null"/"NaN" (it loads a string index out of
// range or a short column without complaint, so the names are checked).
//
//   node check_firefox_profile.mjs PROFILE.json PROFILER_CLI_JS
// Prints one line per thread and "N passed, M failed"; exit status 0 iff M is 0.
// Offline: PROFILER_CLI_NO_SYMBOLICATE=1, and perflens marks its profiles symbolicated.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [profilePath, cli] = process.argv.slice(2);
if (!profilePath || !cli) {
  console.error('usage: node check_firefox_profile.mjs PROFILE.json PROFILER_CLI_JS');
  process.exit(2);
}
const sessionDir = mkdtempSync(join(tmpdir(), 'perflens-ffx-'));
const env = { ...process.env, PROFILER_CLI_SESSION_DIR: sessionDir, PROFILER_CLI_NO_SYMBOLICATE: '1' };
const session = 'perflens';
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else {
    failed++;
    console.log('FAIL: ' + what);
  }
};
const pq = (...args) =>
  execFileSync(process.execPath, [cli, ...args, '--session', session],
               { env, encoding: 'utf8', timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] });
const pqJson = (...args) => JSON.parse(pq(...args, '--json'));

let input = null;
try {
  input = JSON.parse(readFileSync(profilePath, 'utf8'));
} catch (e) {
  check(false, 'not JSON: ' + e.message);
}
let daemon = null;
try {
  if (input) {
    // The daemon is started here and polled: `profiler-cli load` gives the daemon it
    // starts 500 ms to listen, which a loaded 2-core machine can miss. No client runs
    // before the daemon has published its session metadata (complete JSON, written
    // once it listens): a client that finds no metadata removes the session's files,
    // and one racing the daemon's start removes what the daemon just wrote, leaving it
    // unreachable for good.
    daemon = spawn(process.execPath, [cli, '--daemon', resolve(profilePath), '--session', session],
                   { env, stdio: 'ignore' });
    const published = () => {
      try {
        JSON.parse(readFileSync(join(sessionDir, session + '.json'), 'utf8'));
        return true;
      } catch {
        return false;
      }
    };
    let loaded = false;
    let lastError = '';
    const deadline = Date.now() + 120000;
    const running = () => daemon.exitCode === null && daemon.signalCode === null;
    while (Date.now() < deadline && running()) {
      if (!published()) {
        lastError = 'the daemon published no session metadata';
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      try {
        pq('status');
        loaded = true;
        break;
      } catch (e) {
        lastError = String(e.stderr || '') + String(e.stdout || '');
        if (/Profile load failed/.test(lastError)) break;
        await new Promise((r) => setTimeout(r, 200));  // not listening or still loading
      }
    }
    if (!loaded && !running()) {
      let why = '';
      try {
        why = readFileSync(join(sessionDir, session + '.error'), 'utf8');
      } catch {}
      lastError = `the daemon exited (${daemon.exitCode ?? daemon.signalCode}) ${why}`;
    }
    check(loaded, 'the Firefox Profiler could not load the profile: ' + lastError.trim());
    if (loaded) {
      const list = pqJson('thread', 'list');
      check(list.totalThreadCount === input.threads.length,
            `thread count ${list.totalThreadCount} != ${input.threads.length} in the file`);
      for (const t of list.threads) {
        const src = input.threads[t.threadIndex];
        const info = pqJson('thread', 'info', '--thread', t.threadHandle);
        check(t.name === src.name, `${t.threadHandle}: name ${t.name} != ${src.name}`);
        check(info.sampleCount === src.samples.length,
              `${t.threadHandle} ${t.name}: the profiler sees ${info.sampleCount} samples, the file has ${src.samples.length}`);
        const tree = pqJson('thread', 'samples-top-down', '--thread', t.threadHandle, '--include-idle',
                            '--max-lines', '100000');
        const root = tree.regularCallTree;
        const withStack = src.samples.stack.filter((s) => s !== null).length;
        check(root.totalSamples === withStack,
              `${t.threadHandle}: call tree total ${root.totalSamples} != ${withStack} samples with a stack`);
        const bad = [];
        const walk = (n) => {
          if (n.name !== '<root>' && (!n.name || /undefined|^null$|NaN/.test(n.nameWithLibrary)))
            bad.push(n.nameWithLibrary);
          (n.children || []).forEach(walk);
        };
        walk(root);
        check(bad.length === 0, `${t.threadHandle}: function names the profiler could not read: ${bad.slice(0, 5).join(', ')}`);
        console.log(`${t.threadHandle} ${t.name}: ${info.sampleCount} samples, top: ` +
                    (root.children || []).map((c) => c.nameWithLibrary).join(', '));
      }
    }
  }
} finally {
  try {
    pq('stop');
  } catch {}
  if (daemon && daemon.exitCode === null) daemon.kill();
  rmSync(sessionDir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
