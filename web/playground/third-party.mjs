// Reads `npm query` output (JSON: the packages of a dependency tree) on
// stdin and writes their licences as one text: each distinct licence text
// once, under the packages (name@version) that carry it. Packages named on
// the command line are left out. Used by fetch.sh.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const skip = new Set(process.argv.slice(2));
const packages = JSON.parse(readFileSync(0, 'utf8'));
const byText = new Map(); // licence text -> Set of "name@version (licence)"
for (const p of packages) {
  if (skip.has(p.name)) continue;
  const file = readdirSync(p.realpath).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  const text = file ? readFileSync(join(p.realpath, file), 'utf8').trim() : `(no licence file in the package; package.json says: ${p.license ?? 'nothing'})`;
  if (!byText.has(text)) byText.set(text, new Set());
  byText.get(text).add(`${p.name}@${p.version} (${p.license ?? 'unknown'})`);
}
const out = ['The licences of the packages whose code graphiql.min.js bundles, from',
  'its dependency tree as npm resolves it for the pinned graphiql version',
  "(written by web/playground/fetch.sh). GraphiQL's release built the bundle",
  'from the versions of its own lockfile, which may differ from these in',
  'minor or patch level.', ''];
const sections = [...byText].map(([text, names]) => [[...names].sort(), text]).sort((a, b) => a[0][0].localeCompare(b[0][0]));
for (const [names, text] of sections) {
  out.push('='.repeat(72), ...names, '-'.repeat(72), text, '');
}
process.stdout.write(out.join('\n'));
