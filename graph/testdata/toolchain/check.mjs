// check.mjs RELEASED CURRENT ACKNOWLEDGED: graphql-inspector's diff of two
// SDL files. It prints every change with its criticality and exits 1 when a
// breaking change is not listed (by its message) in ACKNOWLEDGED.
import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { diff, CriticalityLevel } from '@graphql-inspector/core';

const [released, current, acknowledged] = process.argv.slice(2);
const load = (path) => buildSchema(readFileSync(path, 'utf8'));
const changes = await diff(load(released), load(current));
const listed = new Set(readFileSync(acknowledged, 'utf8').split('\n')
  .map((line) => line.trim()).filter((line) => line && !line.startsWith('#')));

let unacknowledged = 0;
for (const change of changes) {
  const breaking = change.criticality.level === CriticalityLevel.Breaking;
  const word = breaking ? (listed.has(change.message) ? 'breaking, acknowledged' : 'BREAKING') : change.criticality.level.toLowerCase();
  if (breaking && !listed.has(change.message)) unacknowledged++;
  console.log(`${word}: ${change.message}`);
}
if (unacknowledged > 0) {
  console.error(`${unacknowledged} breaking change(s) not acknowledged in ${acknowledged}`);
  process.exit(1);
}
console.log(`compatible with ${released}: ${changes.length} change(s)`);
