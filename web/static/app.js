// The N-Queens board viewer. Plain ES module, no framework, no build step.
// It talks only to /graphql on this origin: queries over GET (the server
// gives pages that never change a long max-age), the precompute mutation
// over POST, and boardProgress over a websocket (graphql-transport-ws).
//
// What the address bar holds (so that a view can be shared and reloaded):
//   n      board size
//   mode   all | unique
//   size   boards per page
//   after | before   an opaque cursor from the API (the page after/before it)
//   last=1           the last page
//   at     a rank: the page that starts at solution #at (solutionAt)
//   show   the solution whose details are open, in the API's compact form
//   where  the filter board's squares, as `nqueens complete --where` reads
//          them: q<row>.<col> a pinned queen, e<row>.<col> a blocked
//          square, 0-based from the top left, comma-separated
// A value the page cannot use falls back to its default, and a notice at
// the top says what is allowed; so does a parameter the page does not
// know (?unique=1), which is ignored.
//
// What history.state holds for each entry (kept on reload and Back, never
// shared in a link): the position with what the page learnt on the way
// there, the rank of the cursor's solution (pos.anchor, for boards whose
// ranks the server does not know) and, on the last page, the rank past the
// end that led there (pos.pastEnd).

const MAX_N = 27; // the N menu: the boards whose counts are known
const API_MAX_N = 32; // the board sizes the API takes (from the address)
const DEFAULT_N = 8;
const SIZES = [6, 12, 24, 48];
const DEFAULT_SIZE = 12;
const BOARD_PX = 200; // svg(size:) of the boards in the grid
const URL_PARAMS = ['n', 'mode', 'size', 'where', 'after', 'before', 'last', 'at', 'show']; // what the address may hold (above)

// ---------------------------------------------------------------- helpers

const $ = (sel, root = document) => root.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k in e && typeof v !== 'string') e[k] = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Thousands separators for the API's BigInt strings (never Number: counts
// pass 2^53 at N=26).
function fmtBig(s) {
  if (s === null || s === undefined) return '–';
  return String(s).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function fmtSeconds(sec) {
  if (sec === null || sec === undefined) return '–';
  if (sec < 1) return `${Math.max(1, Math.round(sec * 1000))} ms`;
  if (sec < 60) return `${sec.toFixed(sec < 10 ? 2 : 1)} s`;
  const m = Math.floor(sec / 60), s = Math.round(sec % 60);
  if (m < 60) return `${m} min ${s} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function plural(k, one, many = one + 's') {
  return `${fmtBig(String(k))} ${k === 1 || k === '1' ? one : many}`;
}

// Chess file names as the API writes them: a..z, then aa, ab, …
function fileName(c) {
  let s = '';
  for (let v = c + 1; v > 0; v = Math.floor((v - 1) / 26)) s = String.fromCharCode(97 + ((v - 1) % 26)) + s;
  return s;
}

function svgURL(svg) {
  return 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
}

// The compact form: one base-36 digit per row.
function toCompact(p) { return p.map((c) => c.toString(36)).join(''); }
function fromCompact(s) {
  if (!/^[0-9a-z]{1,32}$/.test(s || '')) return null;
  return [...s].map((ch) => parseInt(ch, 36));
}

// ---------------------------------------------------------------- filters

// A filter is a Map from square (r * n + c) to 'q' (a pinned queen) or
// 'e' (a blocked square: no queen there). Its address form is the
// where=… of the page, the form of `nqueens complete --where` (solver.ParseFilter).

// The API's bounds on a filter (graph/filter.go): at most 2N squares a
// list and 64 in all.
const MAX_FILTER_SQUARES = 64;

function whereText(n, f) {
  const parts = { q: [], e: [] };
  for (const [k, v] of [...f].sort((a, b) => a[0] - b[0])) parts[v].push(`${v}${Math.floor(k / n)}.${k % n}`);
  return [...parts.q, ...parts.e].join(',');
}

// parseWhere reads the address form for board n: the filter, or the
// reason it is none, in words that say what is allowed.
function parseWhere(raw, n) {
  const f = new Map();
  if (raw === '') return { f };
  const form = 'write q<row>.<col> for a pinned queen and e<row>.<col> for a blocked square, comma-separated, e.g. q0.3,e1.1';
  for (const part of raw.split(',')) {
    const m = /^([qe])([0-9]{1,2})\.([0-9]{1,2})$/.exec(part);
    if (!m) return { problem: `“${part}” is not a square of a filter: ${form}` };
    const r = Number(m[2]), c = Number(m[3]);
    if (r >= n || c >= n) return { problem: `${part} is off the board: rows and columns of N = ${n} go from 0 to ${n - 1}` };
    if (f.has(r * n + c)) return { problem: `the square ${r}.${c} is named twice` };
    f.set(r * n + c, m[1]);
  }
  const count = (v) => [...f.values()].filter((x) => x === v).length;
  if (count('q') > 2 * n || count('e') > 2 * n || f.size > MAX_FILTER_SQUARES) {
    return { problem: `it names ${plural(f.size, 'square')}: at most 2N = ${2 * n} pinned, 2N blocked and ${MAX_FILTER_SQUARES} in all` };
  }
  return { f };
}

function filterOf(st) {
  return st.where ? parseWhere(st.where, st.n).f || new Map() : new Map();
}

// whereVar is the filter as the API's SolutionFilter; undefined (left out
// of the request, which is then the unfiltered one) when there is none.
function whereVar(st) {
  if (!st.where) return undefined;
  const f = filterOf(st);
  const sq = (k) => ({ row: Math.floor(k / st.n), col: k % st.n });
  const keys = [...f.keys()].sort((a, b) => a - b);
  return { queens: keys.filter((k) => f.get(k) === 'q').map(sq), empty: keys.filter((k) => f.get(k) === 'e').map(sq) };
}

// Chess names of squares on a board of size n.
function squareOn(n, r, c) { return `${fileName(c)}${n - r}`; }

// ---------------------------------------------------------------- the API

class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function firstError(errors) {
  const e = errors[0];
  return new ApiError((e.extensions && e.extensions.code) || 'ERROR', e.message || 'the server answered with an error');
}

// gql sends a query with GET (a mutation with POST) and returns its data.
// Errors become ApiError with the server's extensions.code, unless
// `partial` is set: then {data, errors} come back as they are.
async function gql(query, variables, { method = 'GET', headers = {}, signal, partial = false } = {}) {
  const init = { method, signal, headers: { Accept: 'application/graphql-response+json, application/json;q=0.9', ...headers } };
  let url = '/graphql';
  if (method === 'GET') {
    url += '?' + new URLSearchParams({ query, variables: JSON.stringify(variables) });
  } else {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify({ query, variables });
  }
  const t0 = performance.now();
  let res;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError('NETWORK', `the server could not be reached (${e.message})`);
  }
  let body;
  try {
    body = await res.json();
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(`HTTP_${res.status}`, `the server answered ${res.status} ${res.statusText} without a GraphQL body`);
  }
  const ms = performance.now() - t0;
  const errors = body.errors || [];
  if (partial) return { data: body.data || {}, errors, ms };
  if (errors.length) throw firstError(errors);
  if (!body.data) throw new ApiError(`HTTP_${res.status}`, 'the server answered without data');
  return { data: body.data, ms };
}

// subscribe runs one subscription over graphql-transport-ws. It calls
// onNext with each result's data, onDone when the server completes it,
// onLost when the socket closes before that (or never opens). It returns a
// function that ends it.
function subscribe(query, variables, { onNext, onDone, onLost, onError }) {
  const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/graphql`;
  let ws;
  try {
    ws = new WebSocket(url, 'graphql-transport-ws');
  } catch (e) {
    setTimeout(() => onLost(`the websocket could not be opened (${e.message})`), 0);
    return () => {};
  }
  let over = false;
  const send = (m) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m));
  ws.addEventListener('open', () => send({ type: 'connection_init', payload: {} }));
  ws.addEventListener('message', (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    switch (m.type) {
      case 'connection_ack':
        send({ id: '1', type: 'subscribe', payload: { query, variables } });
        break;
      case 'ping':
        send({ type: 'pong' });
        break;
      case 'next':
        if (m.payload.errors && m.payload.errors.length) onError(firstError(m.payload.errors));
        else onNext(m.payload.data);
        break;
      case 'error':
        over = true;
        onError(firstError(Array.isArray(m.payload) ? m.payload : [m.payload]));
        ws.close(1000);
        break;
      case 'complete':
        over = true;
        ws.close(1000);
        onDone();
        break;
    }
  });
  ws.addEventListener('close', (ev) => {
    if (!over) {
      over = true;
      onLost(`the websocket closed (code ${ev.code}${ev.reason ? ': ' + ev.reason : ''})`);
    }
  });
  return () => {
    if (over) return;
    over = true;
    send({ id: '1', type: 'complete' });
    ws.close(1000);
  };
}

const BOARD_FIELDS = `
  n state storesSolutions pagesSource countsSource error requestedBy
  total unique
  progress { fraction chunksDone chunksTotal solutionsFound etaSeconds }
  timings { requestedAt startedAt finishedAt durationSeconds }`;

const Q_SUMMARY = `query Summary($n: Int!) {
  count(n: $n) {
    total unique source state
    classes { orbit1 orbit2 orbit4 orbit8 }
    board { ${BOARD_FIELDS} squareCounts uniqueSquareCounts }
  }
}`;

const Q_BOARD = `query Board($n: Int!) { board(n: $n) { ${BOARD_FIELDS} } }`;

const S_PROGRESS = `subscription Progress($n: Int!) { boardProgress(n: $n) { ${BOARD_FIELDS} } }`;

const M_PRECOMPUTE = `mutation Precompute($n: Int!, $requestedBy: String) {
  precompute(n: $n, requestedBy: $requestedBy) { ${BOARD_FIELDS} }
}`;

function itemFields(mode) {
  return `placement compact isCanonical orbitSize ${mode === 'unique' ? 'uniqueRank' : 'rank'} svg(size: ${BOARD_PX})`;
}

function pageQuery(mode, filtered) {
  const field = mode === 'unique' ? 'uniqueSolutions' : 'solutions';
  const where = filtered ? ['$where: SolutionFilter!, ', ', where: $where'] : ['', ''];
  return `query Page(${where[0]}$n: Int!, $first: Int, $after: String, $last: Int, $before: String) {
  page: ${field}(n: $n, first: $first, after: $after, last: $last, before: $before${where[1]}) {
    totalCount source
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { ${itemFields(mode)} } }
  }
}`;
}

// The page that starts at a rank: one solutionAt per board, as aliases of
// one request.
function atQuery(mode, count) {
  const vars = [], fields = [];
  for (let i = 0; i < count; i++) {
    vars.push(`$r${i}: BigInt!`);
    fields.push(`s${i}: solutionAt(n: $n, rank: $r${i}, unique: $u) { ${itemFields(mode)} }`);
  }
  return `query At($n: Int!, $u: Boolean!, ${vars.join(', ')}) {\n  ${fields.join('\n  ')}\n}`;
}

// A walk through a filtered listing: cursors only, to find where the
// page that starts at a rank begins (solutionAt takes no filter).
function walkQuery(mode) {
  const field = mode === 'unique' ? 'uniqueSolutions' : 'solutions';
  return `query Walk($n: Int!, $where: SolutionFilter!, $first: Int!, $after: String) {
  walk: ${field}(n: $n, first: $first, after: $after, where: $where) {
    pageInfo { hasNextPage }
    edges { cursor }
  }
}`;
}

// The counts of a filtered board: the matching solutions and the classes
// with a member that matches (null with a TIMEOUT error when the server
// could not count them within its time budget).
const Q_MATCH = `query Match($n: Int!, $where: SolutionFilter!) {
  count(n: $n, where: $where) { total unique source }
}`;

// The heat map of a filtered board: the square counts of the matching
// solutions and of the matching classes' canonical members, tallied by
// the server within its time budget (null with TIMEOUT past it). Asked
// once the counts are in, so that they show first and the tally gets the
// request's whole budget.
const Q_MATCH_HEAT = `query MatchHeat($n: Int!, $where: SolutionFilter!) {
  count(n: $n, where: $where) { squareCounts uniqueSquareCounts }
}`;

const Q_DETAILS = `query Details($p: [Int!]!) {
  solution(placement: $p) {
    n placement compact chess rows rank uniqueRank isCanonical orbitSize svg(size: 360)
    canonical { placement compact uniqueRank }
    symmetries { symmetry name isSame placement solution { svg(size: 120) } }
  }
}`;

// The try-it board's check: the verdict, and for a solution where it
// stands (solution answers BAD_USER_INPUT when the placement is none).
const Q_VALIDATE = `query Validate($p: [Int!]!, $n: Int) {
  validate(placement: $p, n: $n) { valid message conflict { rowA rowB colA colB kind message } }
  solution(placement: $p) {
    compact rank uniqueRank isCanonical orbitSize
    canonical { placement compact uniqueRank }
  }
}`;

// The try-it board's completion: the queens placed so far kept, the other
// rows filled by the server, or why that cannot be done.
const Q_COMPLETE = `query Complete($n: Int!, $queens: [SquareInput!]) {
  complete(n: $n, queens: $queens) { state placement reason }
}`;

// ---------------------------------------------------------------- view state

function defaultState() {
  return { n: DEFAULT_N, mode: 'all', size: DEFAULT_SIZE, where: '', pos: { kind: 'first' }, show: null };
}

// fromURL reads the view from the address bar (and the current history
// entry's state). It returns the view and what it had to set aside, in
// words that say what is allowed.
function fromURL() {
  const q = new URLSearchParams(location.search);
  const st = defaultState();
  const problems = [];
  const unknown = [...new Set(q.keys())].filter((k) => !URL_PARAMS.includes(k));
  if (unknown.length) {
    const hint = unknown.includes('unique') ? ' (for one solution per symmetry class: mode=unique)' : '';
    problems.push(`${unknown.map((k) => `“${k}”`).join(', ')} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} of this page, ignored: the address takes ${URL_PARAMS.slice(0, -1).join(', ')} and ${URL_PARAMS[URL_PARAMS.length - 1]}${hint}.`);
  }
  if (q.has('n')) {
    const raw = q.get('n');
    if (/^[0-9]{1,2}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= API_MAX_N) st.n = Number(raw);
    else problems.push(`${raw === '' ? 'n is empty' : `n=“${raw}” is not a board size`}: N is a whole number from 1 to ${API_MAX_N}. Showing N = ${DEFAULT_N} instead.`);
  }
  if (q.has('mode')) {
    if (q.get('mode') === 'unique') st.mode = 'unique';
    else if (q.get('mode') !== 'all') problems.push(`mode=“${q.get('mode')}” is not a listing: it is all or unique. Showing all solutions.`);
  }
  if (q.has('size')) {
    const size = Number(q.get('size'));
    if (SIZES.includes(size) && /^[0-9]+$/.test(q.get('size'))) st.size = size;
    else problems.push(`size=“${q.get('size')}” is not a page size: it is ${SIZES.slice(0, -1).join(', ')} or ${SIZES[SIZES.length - 1]}. Showing ${DEFAULT_SIZE} boards per page.`);
  }
  if (q.has('where')) {
    const raw = q.get('where').trim();
    const { f, problem } = parseWhere(raw, st.n);
    if (f) st.where = whereText(st.n, f);
    else problems.push(`where=“${raw}” is not a filter of N = ${st.n}: ${problem}. Showing every solution.`);
  }
  if (q.get('after')) st.pos = { kind: 'after', cursor: q.get('after') };
  else if (q.get('before')) st.pos = { kind: 'before', cursor: q.get('before') };
  else if (q.get('last')) st.pos = { kind: 'last' };
  else if (q.get('at')) st.pos = { kind: 'at', rank: q.get('at') };
  const saved = history.state && history.state.pos;
  if (saved && saved.kind === st.pos.kind && saved.cursor === st.pos.cursor && saved.rank === st.pos.rank) {
    if (/^[0-9]{1,20}$/.test(saved.anchor || '')) st.pos.anchor = saved.anchor;
    if (/^[0-9]{1,20}$/.test(saved.pastEnd || '')) st.pos.pastEnd = saved.pastEnd;
  }
  if (q.get('show')) st.show = q.get('show');
  return { view: st, problems };
}

function toURL(st) {
  const q = new URLSearchParams();
  q.set('n', st.n);
  q.set('mode', st.mode);
  if (st.size !== DEFAULT_SIZE) q.set('size', st.size);
  // Set apart: the filter's commas stay commas in the address.
  const where = st.where ? 'where=' + st.where.replace(/[^qe0-9.,]/g, '') : '';
  switch (st.pos.kind) {
    case 'after': q.set('after', st.pos.cursor); break;
    case 'before': q.set('before', st.pos.cursor); break;
    case 'last': q.set('last', '1'); break;
    case 'at': q.set('at', st.pos.rank); break;
  }
  if (st.show) q.set('show', st.show);
  const rest = q.toString().split('&');
  rest.splice(st.size !== DEFAULT_SIZE ? 3 : 2, 0, ...(where ? [where] : []));
  return '/?' + rest.join('&');
}

let view = defaultState();
let shown = { summaryN: null, pageKey: null, validatorN: null, filterN: null, matchKey: null }; // what is on screen
let page = null; // the page on screen: { st (the view it shows), items, total, hasPrev, hasNext, prev, next }
let summary = null;

function navigate(patch, { replace = false } = {}) {
  view = { ...view, ...patch };
  const url = toURL(view);
  if (replace) history.replaceState({ pos: view.pos }, '', url);
  else history.pushState({ pos: view.pos }, '', url);
  render();
}

window.addEventListener('popstate', () => {
  detailsPushed = false;
  const read = fromURL();
  view = read.view;
  if (read.problems.length) showNotice(read.problems);
  render();
});

function render() {
  syncControls();
  if (shown.summaryN !== view.n) {
    shown.summaryN = view.n;
    loadSummary(view.n);
  }
  if (shown.validatorN !== view.n) {
    shown.validatorN = view.n;
    resetValidator(view.n);
  }
  if (shown.filterN !== view.n) {
    shown.filterN = view.n;
    buildFilterBoard(view.n);
  }
  syncFilterBoard();
  const matchKey = JSON.stringify([view.n, view.where]);
  if (shown.matchKey !== matchKey) {
    shown.matchKey = matchKey;
    loadMatch(view.n, view.where);
  }
  const key = JSON.stringify([view.n, view.mode, view.size, view.where, view.pos]);
  if (shown.pageKey !== key) {
    shown.pageKey = key;
    loadPage();
  }
  syncDetails();
}

function syncControls() {
  const sel = $('#n');
  if (![...sel.options].some((o) => o.value === String(view.n))) {
    sel.append(el('option', { value: String(view.n), text: String(view.n) }));
  }
  sel.value = String(view.n);
  for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === view.mode;
  $('#size').value = String(view.size);
  const filtered = view.where ? ' that match the filter' : '';
  $('#boards-heading').textContent = view.mode === 'unique' ? `Unique solutions${view.where ? ' with a member that matches' : ''}` : `All solutions${filtered}`;
  $('#jump-label').textContent = view.mode === 'unique' ? `Go to${view.where ? ' matching' : ''} unique solution #` : `Go to${view.where ? ' matching' : ''} solution #`;
  $('#boards-empty').textContent = view.where ? (view.mode === 'unique' ? 'No class has a member that matches the filter.' : 'No solution matches the filter.') : 'No solutions.';
}

// ---------------------------------------------------------------- errors

// The banner shows the last error, from one source: summary, page, live
// or precompute. A later success of that source takes it away.
function showError(err, where, source) {
  if (err && err.name === 'AbortError') return;
  const box = $('#error');
  box.dataset.source = source;
  const code = err instanceof ApiError ? err.code : 'CLIENT';
  box.replaceChildren(
    el('strong', { text: where ? `${where}: ` : 'Error: ' }),
    el('code', { class: 'code', text: code }),
    ' ',
    el('span', { class: 'msg', text: err.message }),
    el('button', { type: 'button', class: 'dismiss', 'aria-label': 'Dismiss the error', text: '✕', onclick: () => clearError() }),
  );
  box.hidden = false;
}

function clearError(source) {
  const box = $('#error');
  if (source && box.dataset.source !== source) return;
  box.hidden = true;
  box.replaceChildren();
}

// showNotice says what the page set aside from the address (a board size
// it cannot show, …) and what it shows instead; no problems, no notice.
function showNotice(problems) {
  const box = $('#notice');
  if (!problems.length) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    el('strong', { text: 'The address asked for something this page cannot show. ' }),
    el('span', { class: 'msg', text: problems.join(' ') }),
    el('button', { type: 'button', class: 'dismiss', 'aria-label': 'Dismiss the notice', text: '✕', onclick: () => showNotice([]) }),
  );
  box.hidden = false;
}

// ---------------------------------------------------------------- summary

let stopLive = () => {};

async function loadSummary(n) {
  stopLive();
  summary = null;
  $('#summary-n').textContent = String(n);
  for (const id of ['total', 'unique', 'source', 'took']) $('#' + id).textContent = '…';
  setState('…');
  $('#classes').textContent = '';
  $('#live').textContent = '';
  $('#progress-box').hidden = true;
  $('#precompute-box').hidden = true;
  $('#heat-box').hidden = true;
  try {
    const { data, ms } = await gql(Q_SUMMARY, { n });
    if (view.n !== n) return;
    summary = data.count;
    clearError('summary');
    renderSummary(summary.board, summary, ms);
    renderHeat();
    pageLearnsSummary();
    follow(n, summary.board);
  } catch (err) {
    if (view.n !== n) return;
    setState('error');
    for (const id of ['total', 'unique', 'source', 'took']) $('#' + id).textContent = '–';
    showError(err, `N=${n}`, 'summary');
  }
}

const STATE_TEXT = {
  UNKNOWN: 'not stored',
  PENDING: 'pending',
  RUNNING: 'computing',
  DONE: 'done',
  FAILED: 'failed',
};

function setState(state) {
  const b = $('#state');
  b.textContent = STATE_TEXT[state] || state;
  b.className = 'badge state-' + String(state).toLowerCase().replace(/[^a-z]/g, '');
}

// renderSummary shows a board; counts come from `count` (which counts
// small boards on the spot) when the board itself has none yet.
function renderSummary(board, counts, ms) {
  setState(board.state);
  const total = board.total ?? (counts && counts.total);
  const unique = board.unique ?? (counts && counts.unique);
  $('#total').textContent = fmtBig(total);
  $('#unique').textContent = fmtBig(unique);
  const src = board.countsSource || (counts && counts.source);
  $('#source').textContent = src === 'STORE' ? 'the store' : src === 'SOLVER' ? 'the solver, on the spot' : 'not counted yet';

  const took = [];
  if (board.timings.durationSeconds !== null && board.timings.durationSeconds !== undefined) {
    took.push(`precomputed in ${fmtSeconds(board.timings.durationSeconds)}`);
  }
  else if (board.state === 'RUNNING' && board.timings.startedAt) {
    took.push(`running for ${fmtSeconds(Math.max(0, Date.now() - Date.parse(board.timings.startedAt)) / 1000)}`);
  }
  if (ms !== undefined) took.push(`answered in ${fmtSeconds(ms / 1000)}`);
  $('#took').textContent = took.join(' · ') || '–';

  const cl = counts && counts.classes;
  if (cl) {
    const parts = [];
    for (const [k, size] of [['orbit8', 8], ['orbit4', 4], ['orbit2', 2], ['orbit1', 1]]) {
      if (cl[k] !== '0') parts.push(`${plural(cl[k], 'class', 'classes')} of ${size === 1 ? '1 member' : size + ' members'}`);
    }
    $('#classes').textContent = parts.length ? 'Symmetry classes: ' + parts.join(' · ') : 'No solutions, so no symmetry classes.';
  } else {
    $('#classes').textContent = '';
  }

  const by = $('#requested-by');
  by.hidden = !board.requestedBy;
  by.textContent = board.requestedBy ? `requested by ${board.requestedBy}` : '';

  const running = board.state === 'RUNNING' || board.state === 'PENDING';
  $('#progress-box').hidden = !running;
  if (running) {
    const p = board.progress;
    $('#progress').value = p.fraction;
    const bits = [`${Math.floor(p.fraction * 100)} %`];
    if (p.chunksTotal > 0) bits.push(`${fmtBig(String(p.chunksDone))} of ${plural(p.chunksTotal, 'chunk')}`);
    bits.push(`${plural(p.solutionsFound, 'solution')} found so far`);
    if (p.etaSeconds !== null && p.etaSeconds !== undefined) bits.push(`about ${fmtSeconds(p.etaSeconds)} left`);
    $('#progress-text').textContent = bits.join(' · ');
  }
  if (board.state === 'FAILED' && board.error) {
    $('#live').textContent = `The precompute failed: ${board.error}`;
  } else if (board.state === 'UNKNOWN' && (total === null || total === undefined)) {
    $('#live').textContent = 'This board is not in the store and too large to count on the spot; its solutions can still be paged.';
  }
  $('#precompute-box').hidden = !(board.state === 'UNKNOWN' || board.state === 'FAILED');
}

// renderHeat draws the board's square counts (the summary's; null until
// the board is done in the store) as a heat map: each square coloured by
// its share of the busiest square, its count in its title and label.
//
// Under a filter it draws the filter's square counts instead (match.heat):
// over the matching solutions, or the canonical members of the classes
// with a matching member; while they are asked for, or when the server
// could not tally them within its budget, the map is empty and the
// legend says so.
function renderHeat() {
  if (view.where) {
    renderMatchHeat();
    return;
  }
  const board = summary && summary.board;
  const box = $('#heat-box');
  if (!board || !board.squareCounts) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const unique = $('input[name="heat-mode"]:checked').value === 'unique';
  const table = unique ? board.uniqueSquareCounts : board.squareCounts;
  const of = unique ? board.unique : board.total;
  const what = unique ? 'unique solutions' : 'solutions';
  drawHeat(table, of, what, '');
}

// renderMatchHeat is renderHeat under a filter.
function renderMatchHeat() {
  const box = $('#heat-box');
  box.hidden = false;
  const m = match && match.n === view.n && match.where === view.where ? match : null;
  const grid = $('#heat');
  if (!m || !m.heat || m.heat.unknown) {
    grid.replaceChildren();
    grid.setAttribute('aria-label', 'Heat map of the matching solutions: not known');
    const legend = $('#heat-legend');
    legend.replaceChildren();
    if (!m || !m.heat) legend.append('Counting the queens of the matching solutions square by square…');
    else {
      const e = m.heat.unknown;
      legend.append('Not known: the server could not tally the matching solutions square by square within its time budget',
        ...(e && e.code ? [' (', el('code', { class: 'code', text: e.code }), ')'] : []), '.');
    }
    return;
  }
  const unique = $('input[name="heat-mode"]:checked').value === 'unique';
  const table = unique ? m.heat.uniqueSquareCounts : m.heat.squareCounts;
  // Each row sums to what the table counts: a solution has one queen a row.
  const of = table.length ? String(table[0].reduce((a, v) => a + BigInt(v), 0n)) : '0';
  const what = unique ? 'canonical solutions of the matching classes' : 'matching solutions';
  drawHeat(table, of, what, unique
    ? ' Over the classes with a member that matches the filter, each by its canonical member (which need not match).'
    : ' Over the solutions that match the filter.');
}

// drawHeat draws table (N rows of N BigInt strings) of `of` placements,
// what they are, and the legend's note on what it is over.
function drawHeat(table, of, what, over) {
  const n = table.length;
  // Counts are BigInt strings; BigInt keeps them exact past 2^53.
  let max = 0n;
  for (const row of table) for (const v of row) if (BigInt(v) > max) max = BigInt(v);
  const grid = $('#heat');
  grid.style.setProperty('--n', String(n));
  grid.classList.toggle('numbers', n <= 10);
  grid.setAttribute('aria-label', `Heat map of N=${n}: how many of the ${fmtBig(of)} ${what} have a queen on each square`);
  const cells = [];
  table.forEach((row, r) => row.forEach((v, c) => {
    const share = max === 0n ? 0 : Number((BigInt(v) * 1000n) / max) / 10;
    const ofAll = BigInt(of) === 0n ? 0 : Number((BigInt(v) * 10000n) / BigInt(of)) / 100;
    const label = `${fileName(c)}${n - r}: ${fmtBig(v)} of ${fmtBig(of)} ${what} (${ofAll} %)`;
    const cell = el('span', { class: 'heat-cell', role: 'img', title: label, 'aria-label': label, 'data-count': v },
      n <= 10 ? fmtBig(v) : null);
    // Through the CSSOM: the page's Content-Security-Policy refuses style
    // attributes.
    cell.style.setProperty('--share', `${share}%`);
    cell.classList.toggle('hot', share > 55); // light digits on the dark squares
    cells.push(cell);
  }));
  grid.replaceChildren(...cells);
  $('#heat-legend').textContent = max === 0n
    ? `No ${what}: every square is empty.`
    : `Darkest: ${fmtBig(String(max))} ${what} with a queen on the square (the busiest); white: none. The top row is rank ${n}, as on the boards below.${over}`;
}

for (const input of document.querySelectorAll('input[name="heat-mode"]')) input.addEventListener('change', renderHeat);

// follow keeps a pending or running board up to date: live over the
// websocket, or by asking every few seconds when the socket is lost.
function follow(n, board) {
  stopLive();
  if (board.state !== 'PENDING' && board.state !== 'RUNNING') return;
  const live = $('#live');
  live.textContent = 'Following the computation live…';
  let timer = 0, stopped = false;
  const finish = () => {
    if (view.n !== n) return;
    live.textContent = '';
    shown.summaryN = null; // reload counts, timings and the page's ranks
    shown.pageKey = null;
    render();
  };
  const onBoard = (b) => {
    if (stopped || view.n !== n) return;
    renderSummary(b, summary);
    if (b.state === 'DONE' || b.state === 'FAILED') {
      stopLive();
      finish();
    }
  };
  const poll = async () => {
    if (stopped) return;
    try {
      const { data } = await gql(Q_BOARD, { n });
      clearError('live');
      onBoard(data.board);
    } catch (err) {
      showError(err, `N=${n}`, 'live');
    }
    if (!stopped) timer = setTimeout(poll, 3000);
  };
  const end = subscribe(S_PROGRESS, { n }, {
    onNext: (data) => onBoard(data.boardProgress),
    onDone: () => { if (!stopped) { stopped = true; finish(); } },
    onError: (err) => showError(err, `live progress of N=${n}`, 'live'),
    onLost: (why) => {
      if (stopped || view.n !== n) return;
      live.textContent = `Live updates stopped: ${why}. Checking every 3 s instead.`;
      poll();
    },
  });
  stopLive = () => {
    stopped = true;
    clearTimeout(timer);
    end();
    stopLive = () => {};
  };
}

$('#precompute-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const n = view.n;
  try {
    // An empty name is no name: the board's requester stays unknown.
    const requestedBy = $('#requester').value.trim() || null;
    const { data } = await gql(M_PRECOMPUTE, { n, requestedBy }, { method: 'POST', headers: { Authorization: 'Bearer ' + $('#token').value } });
    clearError('precompute');
    renderSummary(data.precompute, summary);
    follow(n, data.precompute);
  } catch (err) {
    showError(err, `precompute N=${n}`, 'precompute');
  }
});

// ---------------------------------------------------------------- matches

let match = null; // the counts of the filter on screen: { n, where, total, unique, unknown }
let matchAbort = null;

// loadMatch counts what the filter matches, beside the board's own counts.
async function loadMatch(n, where) {
  if (matchAbort) matchAbort.abort();
  matchAbort = null;
  match = null;
  const note = $('#match-note');
  $('#match-box').hidden = $('#match-unique-box').hidden = !where;
  note.hidden = true;
  clearError('match');
  renderHeat();
  if (!where) return;
  const ctl = new AbortController();
  matchAbort = ctl;
  for (const id of ['#match-total', '#match-unique']) {
    $(id).textContent = '…';
    $(id).classList.remove('unknown');
  }
  try {
    const { data, errors } = await gql(Q_MATCH, { n, where: whereVar({ n, where }) }, { signal: ctl.signal, partial: true });
    if (ctl.signal.aborted) return;
    // A count that did not fit the server's time budget is null with a
    // TIMEOUT error on it; anything else is an error of the request.
    const timeout = errors.find((e) => e.extensions && e.extensions.code === 'TIMEOUT');
    const other = errors.find((e) => e !== timeout);
    if (other) throw firstError([other]);
    if (!data.count) throw new ApiError('ERROR', 'the server answered without counts');
    match = { n, where, total: data.count.total, unique: data.count.unique, unknown: timeout ? firstError([timeout]) : null, heat: null };
    renderMatch();
    pageLearnsSummary();
    renderHeat();
    loadMatchHeat(match, ctl.signal);
  } catch (err) {
    if (ctl.signal.aborted || err.name === 'AbortError') return;
    $('#match-total').textContent = $('#match-unique').textContent = '–';
    $('#heat-legend').textContent = 'Not known: the filter could not be counted.';
    showError(err, `the count of the filter on N=${n}`, 'match');
  }
}

// loadMatchHeat asks for the square counts of the filter on screen (m,
// the match just counted) and draws them when m is still on screen:
// m.heat is { squareCounts, uniqueSquareCounts } or { unknown: error }.
async function loadMatchHeat(m, signal) {
  try {
    const { data, errors } = await gql(Q_MATCH_HEAT, { n: m.n, where: whereVar(m) }, { signal, partial: true });
    if (signal.aborted) return;
    const timeout = errors.find((e) => e.extensions && e.extensions.code === 'TIMEOUT');
    const other = errors.find((e) => !e.extensions || e.extensions.code !== 'TIMEOUT');
    if (other) throw firstError([other]);
    const c = data.count;
    m.heat = c && c.squareCounts && c.uniqueSquareCounts
      ? { squareCounts: c.squareCounts, uniqueSquareCounts: c.uniqueSquareCounts }
      : { unknown: timeout ? firstError([timeout]) : new ApiError('ERROR', 'the server answered without square counts') };
  } catch (err) {
    if (signal.aborted || err.name === 'AbortError') return;
    m.heat = { unknown: err };
  }
  if (match === m) renderHeat();
}

function renderMatch() {
  const note = $('#match-note');
  const known = match.total !== null && match.total !== undefined;
  for (const [id, v] of [['#match-total', match.total], ['#match-unique', match.unique]]) {
    $(id).textContent = known ? fmtBig(v) : 'not known';
    $(id).classList.toggle('unknown', !known);
  }
  note.hidden = known;
  note.replaceChildren();
  if (!known) {
    const e = match.unknown;
    note.append('The server could not count the matching solutions within its time budget',
      ...(e ? [' (', el('code', { class: 'code', text: e.code }), ')'] : []),
      '. The pages below still list them.');
  }
}

// ---------------------------------------------------------------- pages

let pageAbort = null;
let loading = false;

async function loadPage() {
  if (pageAbort) pageAbort.abort();
  const ctl = new AbortController();
  pageAbort = ctl;
  const st = { ...view };
  const list = $('#boards');
  list.setAttribute('aria-busy', 'true');
  loading = true;
  // Say so when a page takes a while (a large board paged by the solver).
  const slow = setTimeout(() => { $('#range').textContent = 'Loading…'; }, 400);
  try {
    const p = st.pos.kind === 'at' ? await loadAt(st, ctl.signal) : await loadCursorPage(st, ctl.signal);
    if (ctl.signal.aborted) return;
    page = { ...p, st };
    clearError('page');
    renderPage(st, p);
  } catch (err) {
    if (ctl.signal.aborted || err.name === 'AbortError') return;
    if (err instanceof PastTheEnd) {
      // A rank past the end shows the last page, and says why.
      navigate({ pos: { kind: 'last', pastEnd: err.rank } }, { replace: true });
      return;
    }
    page = null;
    $('#page-note').hidden = true;
    list.replaceChildren();
    $('#range').textContent = '';
    showError(err, st.pos.kind === 'at' ? `solution #${st.pos.rank}` : `solutions of N=${st.n}`, 'page');
    setPager({ hasPrev: false, hasNext: false, ends: true });
  } finally {
    clearTimeout(slow);
    if (pageAbort === ctl) {
      loading = false;
      list.setAttribute('aria-busy', 'false');
    }
  }
}

function rankOf(mode, node) {
  return mode === 'unique' ? node.uniqueRank : node.rank;
}

async function loadCursorPage(st, signal) {
  const filtered = Boolean(st.where);
  const v = { n: st.n, where: whereVar(st) };
  switch (st.pos.kind) {
    case 'first': v.first = st.size; break;
    case 'after': v.first = st.size; v.after = st.pos.cursor; break;
    case 'before': v.last = st.size; v.before = st.pos.cursor; break;
    case 'last': v.last = st.size; break;
  }
  const { data, errors } = await gql(pageQuery(st.mode, filtered), v, { signal, partial: true });
  // Under a filter the total may not fit the server's time budget: null
  // with an error on it, while the page itself is answered.
  const onTotal = (e) => filtered && Array.isArray(e.path) && e.path[0] === 'page' && e.path[1] === 'totalCount';
  const other = errors.find((e) => !onTotal(e));
  if (other) throw firstError([other]);
  const conn = data.page;
  if (!conn) throw new ApiError('ERROR', 'the server answered without a page');
  const totalError = errors.find(onTotal);
  // A filtered listing's ranks are places among the matches, counted by
  // the page like the ranks the server does not know; the server's rank
  // is the place among all solutions (globalRank).
  const items = conn.edges.map((e) => ({ ...e.node, cursor: e.cursor, globalRank: rankOf(st.mode, e.node), rank: filtered ? null : rankOf(st.mode, e.node) }));
  const pi = conn.pageInfo;
  // A page after a cursor has the cursor's solution before it; a page
  // before one has it after.
  const hasPrev = st.pos.kind === 'after' || ((st.pos.kind === 'before' || st.pos.kind === 'last') && pi.hasPreviousPage);
  const hasNext = st.pos.kind === 'before' || ((st.pos.kind === 'after' || st.pos.kind === 'first') && pi.hasNextPage);
  // Ranks the server does not know (a board paged by the solver, larger
  // than it ranks by walking) are known at the two ends of the listing,
  // and from the page the viewer came from: pos.anchor is the rank of the
  // cursor's solution.
  const total = conn.totalCount;
  const atStart = st.pos.kind === 'first' || (st.pos.kind === 'before' && !pi.hasPreviousPage);
  const atEnd = (st.pos.kind === 'last' || (st.pos.kind === 'after' && !pi.hasNextPage)) && total;
  items.forEach((s, i) => {
    if (s.rank) return;
    let r = null;
    if (atStart) r = BigInt(i + 1);
    else if (atEnd) r = BigInt(total) - BigInt(items.length - 1 - i);
    else if (st.pos.anchor && st.pos.kind === 'after') r = BigInt(st.pos.anchor) + BigInt(i + 1);
    else if (st.pos.anchor && st.pos.kind === 'before') r = BigInt(st.pos.anchor) - BigInt(items.length - i);
    if (r !== null && r >= 1n) s.rank = r.toString();
  });
  let prev = null, next = null;
  if (hasPrev) prev = pi.startCursor ? { kind: 'before', cursor: pi.startCursor, anchor: items[0].rank || undefined } : { kind: 'last' };
  if (hasNext) next = pi.endCursor ? { kind: 'after', cursor: pi.endCursor, anchor: items[items.length - 1].rank || undefined } : { kind: 'first' };
  return { items, total, totalUnknown: totalError ? firstError([totalError]) : null, source: conn.source, hasPrev, hasNext, prev, next };
}

// The most a jump under a filter walks, and its steps: solutionAt ranks
// all solutions, so the page counts the matches to the one asked for.
const WALK_STEP = 1000;
const WALK_MAX = 20000;

// loadFilteredAt is loadAt under a filter: it walks the matching
// listing's cursors to the one before rank k, then loads the page after it.
async function loadFilteredAt(st, k, signal) {
  const total = knownTotal(st);
  if (total !== null && total !== undefined && k > BigInt(total)) throw new PastTheEnd(k);
  if (k > BigInt(WALK_MAX)) {
    throw new ApiError('BAD_USER_INPUT', `under a filter, “go to #” counts its way through the matches and goes up to #${fmtBig(String(WALK_MAX))}: page on from there, or clear the filter`);
  }
  let cursor = null;
  let skipped = 0n;
  while (skipped < k - 1n) {
    const want = k - 1n - skipped < BigInt(WALK_STEP) ? Number(k - 1n - skipped) : WALK_STEP;
    const { data } = await gql(walkQuery(st.mode), { n: st.n, where: whereVar(st), first: want, after: cursor }, { signal });
    const edges = data.walk.edges;
    if (!edges.length) throw new PastTheEnd(k);
    skipped += BigInt(edges.length);
    cursor = edges[edges.length - 1].cursor;
    if (skipped < k - 1n && !data.walk.pageInfo.hasNextPage) throw new PastTheEnd(k);
  }
  const pos = cursor ? { kind: 'after', cursor, anchor: (k - 1n).toString() } : { kind: 'first' };
  const p = await loadCursorPage({ ...st, pos }, signal);
  if (!p.items.length) throw new PastTheEnd(k);
  return p;
}

// PastTheEnd is a rank past the end of the listing.
class PastTheEnd extends Error {
  constructor(k) {
    super(`#${k} is past the end`);
    this.rank = k.toString();
  }
}

// pastEndNote says why the last page is shown: the rank asked for is past
// the end.
function pastEndNote(st, total) {
  const k = fmtBig(st.pos.pastEnd);
  const noun = (st.where ? 'matching ' : '') + (st.mode === 'unique' ? 'unique solution' : 'solution');
  if (total === '0') return `N = ${st.n} has no ${noun}s, so there is no ${noun} #${k}.`;
  if (total) return `There ${total === '1' ? 'is' : 'are'} only ${plural(total, noun)} of N = ${st.n}, so #${k} is past the end: this is the last page.`;
  return `#${k} is past the end: this is the last page.`;
}

function knownTotal(st) {
  if (st.where) {
    if (!match || match.n !== st.n || match.where !== st.where) return null;
    return st.mode === 'unique' ? match.unique : match.total;
  }
  if (!summary || summary.board.n !== st.n) return null;
  return st.mode === 'unique' ? summary.board.unique ?? summary.unique : summary.board.total ?? summary.total;
}

async function loadAt(st, signal) {
  const raw = String(st.pos.rank).replace(/[,\s_]/g, '');
  if (!/^[0-9]{1,20}$/.test(raw) || BigInt(raw) < 1n) {
    throw new ApiError('BAD_USER_INPUT', `“${st.pos.rank}” is not a solution number: type a whole number from 1`);
  }
  const k = BigInt(raw);
  if (st.where) return loadFilteredAt(st, k, signal);
  const total = knownTotal(st);
  if (total !== null && total !== undefined && k > BigInt(total)) throw new PastTheEnd(k);
  const ranks = [];
  for (let i = 0n; i < BigInt(st.size); i++) {
    if (total !== null && total !== undefined && k + i > BigInt(total) && i > 0n) break;
    ranks.push(k + i);
  }
  const vars = { n: st.n, u: st.mode === 'unique' };
  ranks.forEach((r, i) => { vars[`r${i}`] = r.toString(); });
  const { data, errors } = await gql(atQuery(st.mode, ranks.length), vars, { signal, partial: true });
  const items = [];
  for (let i = 0; i < ranks.length; i++) {
    const s = data[`s${i}`];
    if (!s) break;
    items.push({ ...s, rank: ranks[i].toString() });
  }
  if (!items.length && errors.length && errors[0].extensions && errors[0].extensions.code === 'NOT_FOUND') {
    throw new PastTheEnd(k);
  }
  if (!items.length) throw errors.length ? firstError(errors) : new ApiError('NOT_FOUND', `no solution #${raw}`);
  // A later alias may be past the end (NOT_FOUND): that ends the page.
  const other = errors.find((e) => !(e.extensions && e.extensions.code === 'NOT_FOUND'));
  if (other) throw firstError([other]);
  const lastRank = k + BigInt(items.length) - 1n;
  const hasNext = total !== null && total !== undefined ? lastRank < BigInt(total) : items.length === ranks.length;
  const hasPrev = k > 1n;
  let prevRank = k - BigInt(st.size);
  if (prevRank < 1n) prevRank = 1n;
  return {
    items, total, source: null, hasPrev, hasNext,
    prev: hasPrev ? { kind: 'at', rank: prevRank.toString() } : null,
    next: hasNext ? { kind: 'at', rank: (lastRank + 1n).toString() } : null,
  };
}

// rankUnknown says why the ranks of board n are not known, from what the
// summary knows of it.
function rankUnknown(n) {
  const b = summary && summary.board.n === n ? summary.board : null;
  switch (b && b.state) {
    case null: return 'rank unknown';
    case 'PENDING': case 'RUNNING': return `rank unknown: N=${n} is still being computed`;
    case 'FAILED': return `rank unknown: the precompute of N=${n} failed`;
    case 'DONE': return b.storesSolutions ? 'rank unknown' : `rank unknown: only the counts of N=${n} are stored, and its rank index is not counted yet`;
    default: return `rank unknown: N=${n} is not precomputed`;
  }
}

function cardLabel(st, s, unknown) {
  const what = (st.where ? 'Matching ' : '') + (st.mode === 'unique' ? 'unique solution' : 'solution');
  const overall = st.where && s.globalRank ? ` (#${fmtBig(s.globalRank)} of all)` : '';
  return `${what[0].toUpperCase() + what.slice(1)} ${s.rank ? '#' + fmtBig(s.rank) : `(${unknown})`}${overall}: placement ${s.placement.join(' ')}. Show its details`;
}

// cardRankUnknown says why a card has no rank: a filtered listing opened
// at a cursor has not counted the matches before it.
function cardRankUnknown(st) {
  return st.where ? 'place among the matches unknown' : rankUnknown(st.n);
}

// pageLearnsSummary updates the page on screen with what the summary,
// which may come after it, knows: the total, and why ranks are unknown.
function pageLearnsSummary() {
  if (!page) return;
  const { st, items } = page;
  const total = knownTotal(st);
  if (st.pos.kind === 'at' && total !== null && total !== undefined && items.length) {
    page.hasNext = BigInt(items[items.length - 1].rank) < BigInt(total);
    if (!page.hasNext) page.next = null;
    setPager(page);
  }
  renderRange(st, page);
  const unknown = cardRankUnknown(st);
  for (const b of document.querySelectorAll('#boards .card[data-rank=""]')) {
    const s = items.find((it) => it.compact === b.dataset.compact);
    if (!s) continue;
    b.setAttribute('aria-label', cardLabel(st, s, unknown));
    $('.rank', b).textContent = unknown;
  }
}

function renderPage(st, p) {
  const list = $('#boards');
  const unknown = cardRankUnknown(st);
  list.replaceChildren(...p.items.map((s) => el('li', {},
    el('button', {
      type: 'button', class: 'card', 'aria-label': cardLabel(st, s, unknown),
      title: st.where && s.globalRank ? `#${fmtBig(s.globalRank)} of all` : null,
      'data-placement': s.placement.join(','), 'data-rank': s.rank || '', 'data-compact': s.compact,
      onclick: () => openDetails(s.compact),
    },
    el('img', { src: svgURL(s.svg), alt: '', width: BOARD_PX, height: BOARD_PX, decoding: 'async' }),
    st.mode === 'all' && s.isCanonical ? el('span', { class: 'star', title: 'the canonical member of its symmetry class', text: '★' }) : null,
    el('span', { class: 'card-foot' },
      el('span', { class: s.rank ? 'rank' : 'rank unknown', text: s.rank ? '#' + fmtBig(s.rank) : unknown }),
      // Columns as numbers, whatever N: the compact form's letters stay in the address.
      el('code', { class: 'placement', title: `[${s.placement.join(', ')}]`, text: s.placement.join(' ') }),
    )))));
  $('#boards-empty').hidden = p.items.length > 0;

  renderRange(st, p);
  const note = $('#page-note');
  note.textContent = st.pos.pastEnd ? pastEndNote(st, p.total ?? knownTotal(st)) : '';
  note.hidden = !st.pos.pastEnd;
  setPager({ hasPrev: p.hasPrev, hasNext: p.hasNext });
}

// renderRange says which boards the page shows, of how many (from the
// page, else from the summary).
function renderRange(st, p) {
  const total = p.total ?? knownTotal(st);
  const noun = (st.where ? 'Matching ' : '') + (st.mode === 'unique' ? 'classes' : 'solutions');
  const firstRank = p.items.length ? p.items[0].rank : null;
  const lastRank = p.items.length ? p.items[p.items.length - 1].rank : null;
  // Under a filter the total may be out of the server's time budget.
  const unknown = st.where && (total === null || total === undefined) &&
    (p.totalUnknown || (match && match.n === st.n && match.where === st.where && match.unknown));
  const more = unknown ? ' · count not known within the time budget' : '';
  let text;
  if (firstRank && lastRank) {
    text = `${noun[0].toUpperCase() + noun.slice(1)} ${fmtBig(firstRank)}–${fmtBig(lastRank)}` + (total ? ` of ${fmtBig(total)}` : more);
  } else if (!p.items.length && total === '0') {
    text = st.where ? `No ${st.mode === 'unique' ? 'class' : 'solution'} of N = ${st.n} matches the filter` : `N = ${st.n} has no solutions`;
  } else {
    text = `${plural(p.items.length, st.where ? 'matching board' : 'board')} on this page` + (total ? ` · ${fmtBig(total)} in all` : more);
  }
  $('#range').textContent = text;
}

// setPager turns the page buttons on and off; `ends` keeps First and Last
// on after an error, to get back to a page that works.
function setPager(p) {
  const had = document.activeElement;
  $('#first').disabled = !p.hasPrev && !p.ends;
  $('#prev').disabled = !p.hasPrev;
  $('#next').disabled = !p.hasNext;
  $('#last').disabled = !p.hasNext && !p.ends;
  // Keep the keyboard focus in the pager when its button turns off.
  if (had && had.disabled) {
    const other = ['#prev', '#next', '#first', '#last'].map((s) => $(s)).find((b) => !b.disabled);
    (other || $('#boards-heading')).focus();
  }
}

function go(which) {
  if (loading) return;
  if (!page) {
    if (which === 'first') navigate({ pos: { kind: 'first' } });
    if (which === 'last') navigate({ pos: { kind: 'last' } });
    return;
  }
  switch (which) {
    case 'first': if (page.hasPrev) navigate({ pos: { kind: 'first' } }); break;
    case 'last': if (page.hasNext) navigate({ pos: { kind: 'last' } }); break;
    case 'prev': if (page.hasPrev && page.prev) navigate({ pos: page.prev }); break;
    case 'next': if (page.hasNext && page.next) navigate({ pos: page.next }); break;
  }
}

for (const which of ['first', 'prev', 'next', 'last']) {
  $('#' + which).addEventListener('click', () => go(which));
}

document.addEventListener('keydown', (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  if ($('#details').open) return;
  const t = ev.target;
  if (t.closest && (t.closest('input, select, textarea, [contenteditable]') || t.closest('#vboard, #fboard'))) return;
  const which = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[ev.key];
  if (!which) return;
  ev.preventDefault();
  go(which);
});

$('#jump-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const v = $('#jump').value.trim();
  if (!v) return;
  navigate({ pos: { kind: 'at', rank: v.replace(/[,\s_]/g, '') } });
});

$('#board-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  applyForm();
});
for (const id of ['n', 'size']) $('#' + id).addEventListener('change', applyForm);
for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener('change', applyForm);

function applyForm() {
  const n = Number($('#n').value);
  const mode = $('input[name="mode"]:checked').value;
  const size = Number($('#size').value);
  const patch = { n, mode, size, show: null };
  if (n !== view.n || mode !== view.mode) patch.pos = { kind: 'first' };
  else if (size === view.size && view.pos.kind === 'first') return; // nothing changed
  if (n !== view.n) patch.where = ''; // its squares were those of another board
  showNotice([]); // the user has picked a board: the address's problems are past
  navigate(patch);
}

// ---------------------------------------------------------------- details

let detailsFor = null; // the compact placement on screen in the dialog
let detailsPushed = false; // opening the dialog added a history entry

function openDetails(compact) {
  if (view.show === compact) return;
  navigate({ show: compact });
  detailsPushed = true;
}

function syncDetails() {
  const dlg = $('#details');
  if (!view.show) {
    detailsFor = null;
    if (dlg.open) dlg.close();
    return;
  }
  if (detailsFor === view.show && dlg.open) return;
  detailsFor = view.show;
  if (!dlg.open) dlg.showModal();
  loadDetails(view.show);
}

$('#details-close').addEventListener('click', () => $('#details').close());
$('#details').addEventListener('click', (ev) => {
  if (ev.target === ev.currentTarget) ev.currentTarget.close(); // a click on the backdrop
});
$('#details').addEventListener('close', () => {
  detailsFor = null;
  if (!view.show) return;
  if (detailsPushed) {
    // Closing undoes the opening: Back then goes where it went before.
    detailsPushed = false;
    history.back();
  } else {
    navigate({ show: null }, { replace: true });
  }
});

async function loadDetails(compact) {
  const body = $('#details-body');
  const title = $('#details-title');
  const p = fromCompact(compact);
  body.setAttribute('aria-busy', 'true');
  body.replaceChildren(el('p', { class: 'muted', text: 'Loading…' }));
  title.textContent = 'Solution';
  if (!p) {
    body.replaceChildren(errorBlock(new ApiError('BAD_USER_INPUT', `“${compact}” is not a placement in compact form (one base-36 digit per row)`)));
    body.setAttribute('aria-busy', 'false');
    return;
  }
  try {
    const { data } = await gql(Q_DETAILS, { p });
    if (detailsFor !== compact) return;
    renderDetails(data.solution);
  } catch (err) {
    if (detailsFor !== compact) return;
    body.replaceChildren(errorBlock(err));
  } finally {
    body.setAttribute('aria-busy', 'false');
  }
}

function errorBlock(err) {
  return el('p', { class: 'error inline', role: 'alert' },
    el('code', { class: 'code', text: err.code || 'CLIENT' }), ' ', el('span', { class: 'msg', text: err.message }));
}

// The transformations in words; the API's names go below them.
const SYMMETRY_TEXT = {
  IDENTITY: 'as it is',
  ROT90: 'turned ¼ ↻',
  ROT180: 'turned ½',
  ROT270: 'turned ¾ ↻',
  REFLECT_VERTICAL: 'mirrored ↔',
  REFLECT_HORIZONTAL: 'mirrored ↕',
  REFLECT_DIAGONAL: 'mirrored ╲',
  REFLECT_ANTI_DIAGONAL: 'mirrored ╱',
};

// nameParts is a camelCase name (reflectAntiDiagonal) as its words with a
// break opportunity between them, so that a narrow caption wraps between
// words, never inside one.
function nameParts(name) {
  const words = name.split(/(?=[A-Z])/);
  return words.flatMap((w, i) => (i ? [el('wbr'), w] : [w]));
}

function renderDetails(s) {
  const total = summary && summary.board.n === s.n ? summary.board.total ?? summary.total : null;
  // A rank the server does not know may be known from the page it was
  // opened from.
  // (A filtered page's ranks are places among the matches: not these.)
  const onPage = page && page.st.n === s.n && !page.st.where ? page.items.find((it) => it.compact === s.compact) : null;
  const rank = s.rank || (onPage && page.st.mode === 'all' ? onPage.rank : null);
  const uniqueRank = s.uniqueRank || (onPage && page.st.mode === 'unique' ? onPage.rank : null);
  $('#details-title').textContent = `Solution ${rank ? '#' + fmtBig(rank) + ' ' : ''}of N = ${s.n}`;
  const canon = s.canonical;
  const classText = s.isCanonical
    ? el('span', {}, 'This is the canonical member of its class (the smallest of its images)',
      uniqueRank ? `: unique solution #${fmtBig(uniqueRank)}` : '', '.')
    : el('span', {}, 'Its class is named by ',
      el('button', { type: 'button', class: 'link', onclick: () => navigate({ show: canon.compact }, { replace: true }), text: `[${canon.placement.join(', ')}]` }),
      canon.uniqueRank ? ` (unique solution #${fmtBig(canon.uniqueRank)})` : '', '.');

  const dl = el('dl', { class: 'facts' },
    el('dt', { text: 'Placement' }), el('dd', {}, el('code', { id: 'd-placement', text: `[${s.placement.join(', ')}]` })),
    el('dt', { text: 'Chess notation' }), el('dd', {}, el('code', { id: 'd-chess', text: s.chess })),
    el('dt', { text: 'Rank' }), el('dd', { id: 'd-rank', text: rank ? `#${fmtBig(rank)}${total ? ' of ' + fmtBig(total) : ''}` : rankUnknown(s.n).replace(/^rank /, '') }),
    el('dt', { text: 'Class' }), el('dd', { id: 'd-class' }, classText, ` ${plural(s.orbitSize, 'distinct solution')} in the class.`),
    el('dt', { text: 'Rows' }), el('dd', {}, el('pre', { id: 'd-rows', class: 'rows', text: s.rows.join('\n') })),
  );

  const images = el('ul', { class: 'images', id: 'd-images' }, s.symmetries.map((im) => {
    const isCanon = im.placement.join(',') === canon.placement.join(',');
    return el('li', { 'data-name': im.name },
      el('button', {
        type: 'button', class: 'image' + (im.isSame ? ' same' : '') + (isCanon ? ' canon' : ''),
        'aria-label': `${im.name} (${SYMMETRY_TEXT[im.symmetry] || ''}): [${im.placement.join(', ')}]${im.isSame ? ', the solution itself' : ''}${isCanon ? ', canonical' : ''}. Show its details`,
        onclick: () => navigate({ show: toCompact(im.placement) }, { replace: true }),
      },
      el('img', { src: svgURL(im.solution.svg), alt: '', width: 120, height: 120 }),
      el('span', { class: 'image-label', text: SYMMETRY_TEXT[im.symmetry] || im.name }),
      el('span', { class: 'image-name' }, ...nameParts(im.name)),
      el('span', { class: 'image-tags' },
        im.isSame ? el('span', { class: 'tag', text: 'same' }) : null,
        isCanon ? el('span', { class: 'tag canon', text: 'canonical' }) : null)));
  }));

  $('#details-body').replaceChildren(
    el('div', { class: 'details-main' },
      el('img', { class: 'big', src: svgURL(s.svg), alt: `The board: ${s.chess}`, width: 360, height: 360 }),
      el('div', {}, dl,
        el('button', {
          type: 'button', onclick: () => { loadIntoValidator(s.placement); $('#details').close(); $('#validate-heading').scrollIntoView(); },
          text: 'Put it on the board below',
        }))),
    el('h3', { text: 'Its 8 images under the symmetries of the square' }),
    images,
  );
  $('#details-close').focus();
}

// ---------------------------------------------------------------- validate

let vstate = { n: 0, cols: [] };
let vseq = 0;
let cseq = 0; // the completion asked last; a change to the board forgets it

function resetValidator(n) {
  const ok = Number.isInteger(n) && n >= 1 && n <= API_MAX_N;
  vstate = { n: ok ? n : 0, cols: ok ? Array(n).fill(-1) : [] };
  cseq++;
  showCompletion(null);
  buildValidator();
  updateValidator();
}

function loadIntoValidator(p) {
  if (p.length !== vstate.n) return;
  vstate.cols = [...p];
  cseq++;
  showCompletion(null);
  updateValidator();
}

// squareButtons fills board with n×n square buttons, one Tab stop (the
// arrow keys move inside, gridKeys), each calling onclick(r, c).
function squareButtons(board, n, onclick) {
  board.style.setProperty('--n', String(n || 1));
  const rows = [];
  for (let r = 0; r < n; r++) {
    const cells = [];
    for (let c = 0; c < n; c++) {
      cells.push(el('button', {
        type: 'button', class: 'sq ' + ((r + c) % 2 ? 'dark' : 'light'),
        'data-r': String(r), 'data-c': String(c), tabindex: r === 0 && c === 0 ? '0' : '-1',
        onclick: () => onclick(r, c),
      }));
    }
    rows.push(el('div', { class: 'vrow' }, cells));
  }
  board.replaceChildren(...rows);
}

function buildValidator() {
  const n = vstate.n;
  const board = $('#vboard');
  squareButtons(board, n, toggle);
  if (!n) board.append(el('p', { class: 'muted', text: `Pick a board size from 1 to ${API_MAX_N}.` }));
}

// gridKeys moves the keyboard focus over a board of buttons with the
// arrow keys; the board is one stop of the Tab key (the square last
// visited).
function gridKeys(sel, size) {
  $(sel).addEventListener('keydown', (ev) => {
    const t = ev.target;
    if (!t.dataset || t.dataset.r === undefined) return;
    const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
    if (!d) return;
    ev.preventDefault();
    const n = size();
    const r = Math.min(n - 1, Math.max(0, Number(t.dataset.r) + d[0]));
    const c = Math.min(n - 1, Math.max(0, Number(t.dataset.c) + d[1]));
    const next = $(`${sel} [data-r="${r}"][data-c="${c}"]`);
    t.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}

gridKeys('#vboard', () => vstate.n);

function toggle(r, c) {
  vstate.cols[r] = vstate.cols[r] === c ? -1 : c;
  cseq++;
  showCompletion(null);
  updateValidator();
}

$('#vclear').addEventListener('click', () => {
  vstate.cols = Array(vstate.n).fill(-1);
  cseq++;
  showCompletion(null);
  updateValidator();
});

// completeBoard asks the server to fill the empty rows around the queens
// placed; a completed board replaces the one on screen, which the server
// then checks as any full board.
$('#vcomplete').addEventListener('click', async () => {
  const { n, cols } = vstate;
  if (!n) return;
  const seq = ++cseq;
  const queens = [];
  cols.forEach((c, r) => { if (c >= 0) queens.push({ row: r, col: c }); });
  const button = $('#vcomplete');
  button.disabled = true;
  showCompletion('Completing…');
  try {
    const { data } = await gql(Q_COMPLETE, { n, queens });
    if (seq !== cseq) return;
    const c = data.complete;
    const kept = queens.length ? `keeping your ${plural(queens.length, 'queen')}` : 'from an empty board';
    if (c.state === 'COMPLETED') {
      vstate.cols = [...c.placement];
      showCompletion(`Completed ${kept}.`, 'ok');
      updateValidator();
    } else if (c.state === 'IMPOSSIBLE') {
      showCompletion(['This board cannot be completed: ', el('span', { id: 'vcompletion-reason', text: c.reason }), '.'], 'bad');
    } else {
      showCompletion(['Undecided: ', el('span', { id: 'vcompletion-reason', text: c.reason }), '.'], 'warn');
    }
  } catch (err) {
    if (seq !== cseq) return;
    showCompletion([el('code', { class: 'code', text: err.code || 'CLIENT' }), ' ', err.message], 'bad');
  } finally {
    button.disabled = false;
  }
});

// showCompletion shows what the last completion said (null: nothing).
function showCompletion(what, kind = '') {
  const out = $('#vcompletion');
  out.className = 'completion' + (kind ? ' ' + kind : '');
  out.dataset.state = kind;
  out.replaceChildren(...(what === null ? [] : [what].flat()));
}

function squareName(r, c) { return `${fileName(c)}${vstate.n - r}`; }

// threats finds what the queens placed so far attack: the squares in their
// columns and diagonals (a queen's own row is where it moves to) and the
// pairs of queens that attack each other, top row first.
function threats(cols) {
  const n = cols.length;
  const attacked = new Set();
  const pairs = [];
  for (let r = 0; r < n; r++) {
    const c = cols[r];
    if (c < 0) continue;
    for (let r2 = 0; r2 < n; r2++) {
      const d = r2 - r;
      if (d === 0) continue;
      for (const c2 of [c, c - d, c + d]) if (c2 >= 0 && c2 < n) attacked.add(r2 * n + c2);
      if (d > 0 && cols[r2] >= 0 && (cols[r2] === c || Math.abs(cols[r2] - c) === d)) pairs.push([r, r2]);
    }
  }
  return { attacked, pairs };
}

function threatText(pairs) {
  const shown = pairs.slice(0, 3).map(([a, b]) => `${squareName(a, vstate.cols[a])} and ${squareName(b, vstate.cols[b])}`);
  const more = pairs.length > shown.length ? `, and ${plural(pairs.length - shown.length, 'more pair')}` : '';
  return `${pairs.length === 1 ? 'Two queens attack each other' : `${pairs.length} pairs of queens attack each other`}: ${shown.join(', ')}${more}.`;
}

async function updateValidator() {
  const { n, cols } = vstate;
  const seq = ++vseq;
  const { attacked, pairs } = threats(cols);
  const clashing = new Set(pairs.flat());
  for (const b of document.querySelectorAll('#vboard .sq')) {
    const r = Number(b.dataset.r), c = Number(b.dataset.c);
    const q = cols[r] === c;
    const hit = attacked.has(r * n + c);
    b.classList.toggle('queen', q);
    b.classList.toggle('hit', hit && !q);
    b.classList.toggle('clash', q && clashing.has(r));
    b.classList.remove('attack', 'line');
    b.setAttribute('aria-pressed', String(q));
    b.setAttribute('aria-label', squareName(r, c) + (q ? ', queen' : '') + (hit ? ', attacked' : ''));
  }
  $('#vplacement').textContent = n ? `[${cols.map((c) => (c < 0 ? '·' : c)).join(', ')}]` : '';
  const verdict = $('#verdict');
  verdict.className = 'verdict';
  const placed = cols.filter((c) => c >= 0).length;
  // On a solved board every empty square is attacked: the dots would only hide it.
  $('#vboard').classList.toggle('solved', n > 0 && placed === n && !pairs.length);
  if (!n) { verdict.textContent = ''; return; }
  if (placed < n) {
    // Conflicts show as the queens go down; the server checks a full board.
    verdict.className = pairs.length ? 'verdict warn' : 'verdict';
    verdict.replaceChildren(
      `${fmtBig(String(placed))} of ${plural(n, 'row')} ${n === 1 ? 'has' : 'have'} a queen: place one in every row. `,
      el('span', { id: 'vthreats', text: pairs.length ? threatText(pairs) : placed > 1 ? 'No two attack each other so far.' : '' }));
    return;
  }
  verdict.textContent = 'Checking…';
  try {
    const { data, errors } = await gql(Q_VALIDATE, { p: cols, n }, { partial: true });
    if (seq !== vseq) return;
    const onSolution = (e) => Array.isArray(e.path) && e.path[0] === 'solution';
    const other = errors.find((e) => !onSolution(e));
    if (other) throw firstError([other]);
    const v = data.validate;
    if (!v) throw new ApiError('ERROR', 'the server answered without a verdict');
    if (v.valid) {
      verdict.className = 'verdict ok';
      verdict.replaceChildren(el('strong', { text: '✓ A solution. ' }), v.message,
        whereItStands(n, data.solution, errors.find(onSolution)));
      return;
    }
    const k = v.conflict;
    verdict.className = 'verdict bad';
    verdict.replaceChildren(el('strong', { text: '✗ Not a solution. ' }),
      `The queens on ${squareName(k.rowA, k.colA)} and ${squareName(k.rowB, k.colB)} attack each other: `,
      el('span', { id: 'conflict-message', text: k.message }), '. ',
      pairs.length > 1 ? el('span', { id: 'vthreats', text: threatText(pairs) }) : null);
    const steps = k.rowB - k.rowA;
    const dc = Math.sign(k.colB - k.colA);
    for (let i = 0; i <= steps; i++) {
      const sq = $(`#vboard [data-r="${k.rowA + i}"][data-c="${k.colA + dc * i}"]`);
      if (sq) sq.classList.add(i === 0 || i === steps ? 'attack' : 'line');
    }
  } catch (err) {
    if (seq !== vseq) return;
    verdict.className = 'verdict bad';
    verdict.replaceChildren(el('code', { class: 'code', text: err.code || 'CLIENT' }), ' ', err.message);
  }
}

// ---------------------------------------------------------------- filter board

// The filter board asks for the solutions with a queen here and none
// there: each click on a square cycles it from empty to a pinned queen,
// to blocked, to empty again; the listing, its counts and the address
// follow.

function buildFilterBoard(n) {
  squareButtons($('#fboard'), n, cycleSquare);
}

gridKeys('#fboard', () => view.n);

function cycleSquare(r, c) {
  const n = view.n;
  const f = filterOf(view);
  const k = r * n + c;
  if (!f.has(k)) f.set(k, 'q');
  else if (f.get(k) === 'q') f.set(k, 'e');
  else f.delete(k);
  const where = whereText(n, f);
  const { problem } = parseWhere(where, n);
  if (problem) {
    $('#fstatus').textContent = `The filter cannot take this square: ${problem}.`;
    return;
  }
  showNotice([]); // the user has picked a filter: the address's problems are past
  navigate({ where, pos: { kind: 'first' }, show: null });
}

$('#fclear').addEventListener('click', () => {
  showNotice([]);
  navigate({ where: '', pos: { kind: 'first' }, show: null });
  $(`#fboard .sq[tabindex="0"]`)?.focus(); // the button turns off
});

function syncFilterBoard() {
  const n = view.n;
  const f = filterOf(view);
  for (const b of document.querySelectorAll('#fboard .sq')) {
    const r = Number(b.dataset.r), c = Number(b.dataset.c);
    const mark = f.get(r * n + c);
    const name = squareOn(n, r, c);
    b.classList.toggle('queen', mark === 'q');
    b.classList.toggle('blocked', mark === 'e');
    b.dataset.mark = mark || '';
    b.setAttribute('aria-label', mark === 'q' ? `${name}, queen pinned: block this square`
      : mark === 'e' ? `${name}, blocked: clear this square` : `${name}: pin a queen`);
  }
  $('#fclear').disabled = f.size === 0;
  $('#filter').classList.toggle('active', f.size > 0);
  $('#fstatus').replaceChildren(...filterStatus(n, f));
}

// filterStatus says what the filter asks for, and when no solution can
// meet it because two of its queens attack each other.
function filterStatus(n, f) {
  if (!f.size) return ['No filter: every solution is listed.'];
  const names = (v) => [...f].filter(([, m]) => m === v).map(([k]) => k).sort((a, b) => a - b);
  const queens = names('q'), blocked = names('e');
  const list = (keys) => keys.map((k) => squareOn(n, Math.floor(k / n), k % n)).join(', ');
  const out = [];
  const parts = [];
  if (queens.length) parts.push(`${plural(queens.length, 'queen')} pinned (${list(queens)})`);
  if (blocked.length) parts.push(`${plural(blocked.length, 'square')} blocked (${list(blocked)})`);
  out.push(parts.join(', ') + '. ');
  for (let i = 0; i < queens.length; i++) {
    for (let j = i + 1; j < queens.length; j++) {
      const [r1, c1, r2, c2] = [Math.floor(queens[i] / n), queens[i] % n, Math.floor(queens[j] / n), queens[j] % n];
      if (r1 === r2 || c1 === c2 || Math.abs(r1 - r2) === Math.abs(c1 - c2)) {
        out.push(el('span', { id: 'fclash', class: 'warn', text: `The queens pinned on ${squareOn(n, r1, c1)} and ${squareOn(n, r2, c2)} attack each other: no solution matches. ` }));
        i = queens.length;
        break;
      }
    }
  }
  if (view.mode === 'unique') out.push('Unique: the classes with a member that matches, each shown by its canonical member (which may not match itself).');
  return out;
}

// viewLink is a link to another view of this page: a real address (to
// open in a new tab, to copy) that a plain click opens in place.
function viewLink(attrs, patch, text, open = () => navigate(patch)) {
  return el('a', {
    ...attrs, href: toURL({ ...view, ...patch }), text,
    onclick: (ev) => {
      if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
      ev.preventDefault();
      open();
    },
  });
}

// whereItStands links a solution placed on the try-it board to its rank
// (the page that starts with it), its class and its details.
function whereItStands(n, s, err) {
  const list = el('ul', { id: 'vlinks', class: 'vlinks' });
  if (!s) {
    list.append(el('li', {}, 'Its rank could not be found: ',
      el('code', { class: 'code', text: (err && err.extensions && err.extensions.code) || 'ERROR' }), ' ', (err && err.message) || 'no answer'));
    return list;
  }
  // A page that starts at a rank, with the boards' heading in view.
  const pageLink = (id, mode, rank, text) => {
    const patch = { mode, where: '', pos: { kind: 'at', rank }, show: null };
    return viewLink({ id }, patch, text, () => { navigate(patch); $('#boards-heading').focus(); });
  };
  const detailsLink = (id, compact, text) => viewLink({ id }, { show: compact }, text, () => openDetails(compact));
  list.append(el('li', {}, s.rank
    ? ['It is ', pageLink('v-rank', 'all', s.rank, `solution #${fmtBig(s.rank)}`), ` of N = ${n}.`]
    : el('span', { id: 'v-rank-unknown', text: rankUnknown(n).replace(/^rank unknown/, 'Its rank is unknown') + '.' })));
  const classes = `${plural(s.orbitSize, 'solution')} in its symmetry class`;
  if (s.isCanonical) {
    list.append(el('li', {}, 'It is the canonical member of its class',
      s.uniqueRank ? [': ', pageLink('v-class', 'unique', s.uniqueRank, `unique solution #${fmtBig(s.uniqueRank)}`)] : '',
      ` (${classes}).`));
  } else {
    const c = s.canonical;
    list.append(el('li', {}, 'Its class is named by ',
      detailsLink('v-canonical', c.compact, `[${c.placement.join(', ')}]`),
      c.uniqueRank ? [', ', pageLink('v-class', 'unique', c.uniqueRank, `unique solution #${fmtBig(c.uniqueRank)}`)] : '',
      ` (${classes}).`));
  }
  list.append(el('li', {}, detailsLink('v-details', s.compact, 'Show its details')));
  return list;
}

// ---------------------------------------------------------------- start

function init() {
  const sel = $('#n');
  for (let n = 1; n <= MAX_N; n++) sel.append(el('option', { value: String(n), text: String(n) }));
  const read = fromURL();
  view = read.view;
  showNotice(read.problems);
  history.replaceState({ pos: view.pos }, '', toURL(view));
  render();
}

init();
