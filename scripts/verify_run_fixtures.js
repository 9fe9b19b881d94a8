// Cross-checks the committed fixtures against the real JSON.stringify: every
// valid journal event must re-serialize byte for byte and match its checksum.
// Usage: node scripts/verify_run_fixtures.js fixtures/runs   (dev tool; CI does not need node)
const fs = require('fs'), path = require('path'), crypto = require('crypto');
let ok = 0, bad = [];
function walk(d) { for (const e of fs.readdirSync(d, {withFileTypes: true})) { const p = path.join(d, e.name);
  if (e.isDirectory()) walk(p); else if (p.includes('/journal/') && p.endsWith('.json')) check(p); } }
function check(p) { const text = fs.readFileSync(p, 'utf8'); let ev;
  try { ev = JSON.parse(text); } catch (e) { bad.push(p + ': parse'); return; }
  const { checksum, ...rest } = ev;
  const body = JSON.stringify(rest, null, 2) + '\n';
  const h = crypto.createHash('sha256').update(body).digest('hex');
  const full = JSON.stringify(ev, null, 2) + '\n';
  if (h === checksum && full === text) ok++; else bad.push(p + (h === checksum ? ': text differs' : ': checksum'));
}
walk(process.argv[2]); console.log('verified', ok); console.log(bad.join('\n'));
