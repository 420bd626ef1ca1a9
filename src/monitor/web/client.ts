/**
 * The page's script, served as /app.js. It renders what the server sends over SSE — `loop`
 * messages (one event line each, with its sequence number as the SSE id, so the browser's
 * automatic reconnect resumes with Last-Event-ID) and `view` messages (the numbers, story
 * stats and chart) — and keeps only the clocks ticking itself. All text goes in through
 * textContent; the only markup inserted is the server's SVG, built from escaped strings.
 */
export const APP_JS = String.raw`
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let loopId = params.get('loop');
let source;
let latest;
const MAX_EVENTS = 300;

function money(usd) {
  return '$' + usd.toFixed(usd >= 100 ? 0 : usd >= 1 ? 2 : 4);
}
function duration(ms) {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
  if (h > 0) return h + 'h' + String(m).padStart(2, '0') + 'm';
  if (m > 0) return m + 'm' + String(s).padStart(2, '0') + 's';
  return s + 's';
}
function tokens(n) {
  return n >= 1e6 ? (n / 1e6).toFixed(1) + 'M' : n >= 1e3 ? (n / 1e3).toFixed(1) + 'k' : String(n);
}
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) node.append(child);
  return node;
}
function set(id, text, value) {
  const node = $(id);
  node.textContent = text;
  if (value !== undefined) node.dataset.value = String(value);
}
function logHref(iteration, attempt) {
  return '/log?' + new URLSearchParams({ loop: loopId, iteration, attempt });
}

async function loadLoops() {
  const response = await fetch('/api/loops');
  const data = await response.json();
  if (!loopId) loopId = data.selected;
  const list = $('loops');
  list.replaceChildren(
    ...data.loops.map((loop) => {
      const link = el('a', { href: '?loop=' + encodeURIComponent(loop.id), className: loop.id === loopId ? 'selected' : '' },
        el('span', { textContent: loop.id }),
        el('span', { className: 'badge state-' + loop.state, textContent: loop.state }));
      link.dataset.loop = loop.id;
      link.addEventListener('click', (event) => {
        event.preventDefault();
        pick(loop.id);
      });
      return el('li', {}, link);
    }),
  );
}

function pick(id) {
  loopId = id;
  history.replaceState(null, '', '?loop=' + encodeURIComponent(id));
  for (const link of document.querySelectorAll('#loops a')) link.classList.toggle('selected', link.dataset.loop === id);
  connect();
}

function connect() {
  if (source) source.close();
  $('events').replaceChildren();
  if (!loopId) { set('connection', 'no loop directories in this repository'); return; }
  source = new EventSource('/api/events?loop=' + encodeURIComponent(loopId));
  source.onopen = () => set('connection', 'live');
  source.onerror = () => set('connection', 'reconnecting…');
  source.addEventListener('loop', (message) => addEvent(JSON.parse(message.data)));
  source.addEventListener('view', (message) => {
    const previous = latest && latest.view.state;
    latest = JSON.parse(message.data);
    render(latest);
    if (previous !== latest.view.state) loadLoops();
  });
}

function addEvent(event) {
  const list = $('events');
  const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  const time = new Date(event.at);
  list.append(el('li', { className: 'k-' + event.kind },
    el('time', { textContent: isNaN(time) ? '' : time.toLocaleTimeString() }),
    el('span', { textContent: event.text })));
  while (list.children.length > MAX_EVENTS) list.firstElementChild.remove();
  if (stick) list.scrollTop = list.scrollHeight;
}

function render(snapshot) {
  const v = snapshot.view, d = snapshot.derived;
  set('feature', v.feature || snapshot.id);
  const state = $('stat-state');
  state.textContent = v.state;
  state.className = 'badge state-' + v.state;
  set('stat-iteration', v.iteration + '/' + (v.maxIterations || '?'), v.iteration);
  set('stat-stories', v.storiesPassing + '/' + v.storiesTotal, v.storiesPassing);
  $('stat-progress').style.width = (v.storiesTotal > 0 ? (100 * v.storiesPassing) / v.storiesTotal : 0) + '%';
  set('stat-cost', money(v.costUsd), v.costUsd);
  const t = v.tokens;
  set('stat-tokens', tokens(t.input + t.output + t.cacheRead + t.cacheCreation) + ' tokens');
  set('stat-calls', d.callsThisHour + (d.callsLimit === undefined ? '' : '/' + d.callsLimit), d.callsThisHour);
  const breaker = v.safety.breaker;
  set('stat-breaker', breaker ? breaker.state : 'CLOSED');
  set('stat-usage', (snapshot.usage || []).join(' · '));
  const current = v.current;
  set('stat-current', current ? current.storyId + (current.model ? ' · ' + current.model : '') : v.exitReason || '');
  $('chart').innerHTML = snapshot.chart;
  renderStories(snapshot);
  renderIterations(v.iterations);
  tick();
}

function renderStories(snapshot) {
  const v = snapshot.view;
  const stats = new Map(v.stories.map((story) => [story.id, story]));
  const all = snapshot.taskStories || v.stories.map((s) => ({ id: s.id, title: s.title, passes: s.passing }));
  const working = v.current && v.current.storyId;
  $('stories').tBodies[0].replaceChildren(...all.map((story) => {
    const stat = stats.get(story.id) || { attempts: 0, durationMs: 0, costUsd: 0 };
    const status = story.passes || stat.passing ? 'passing' : story.parked ? 'parked' : story.id === working ? 'working' : 'open';
    const row = el('tr', {},
      el('td', {}, el('div', { textContent: story.id }), el('div', { className: 'title', textContent: story.title }),
        el('div', { className: 'title verification', textContent: story.verification || '' })),
      el('td', { className: status, textContent: status }),
      el('td', { className: 'num', textContent: String(stat.attempts) }),
      el('td', { className: 'num', textContent: stat.durationMs ? duration(stat.durationMs) : '-' }),
      el('td', { className: 'num', textContent: stat.costUsd ? money(stat.costUsd) : '-' }));
    row.dataset.story = story.id;
    return row;
  }));
}

function renderIterations(rows) {
  $('iterations').tBodies[0].replaceChildren(...rows.slice(-15).reverse().map((row) => {
    const link = el('a', { href: logHref(row.iteration, row.attempt), textContent: 'log' });
    link.className = 'log-link';
    const tr = el('tr', {},
      el('td', { textContent: row.iteration + (row.attempt > 1 ? '.' + row.attempt : '') }),
      el('td', { textContent: row.storyId }),
      el('td', { textContent: row.outcome || 'running…', title: row.detail || '' }),
      el('td', { className: 'num', textContent: row.durationMs === undefined ? '-' : duration(row.durationMs) }),
      el('td', { className: 'num', textContent: row.costUsd === undefined ? '-' : money(row.costUsd) }),
      el('td', {}, link));
    tr.dataset.iteration = String(row.iteration);
    return tr;
  }));
}

// The clocks tick here between updates; the numbers only ever come from the server.
function tick() {
  if (!latest) return;
  const v = latest.view, now = Date.now();
  const started = Date.parse(v.startedAt), finished = v.state === 'RUNNING' ? NaN : Date.parse(v.finishedAt);
  set('stat-elapsed', isNaN(started) ? '-' : duration((isNaN(finished) ? now : finished) - started));
  set('stat-iteration-time', v.current ? 'this one ' + duration(now - Date.parse(v.current.startedAt)) : '');
  const d = latest.derived;
  set('stat-wait', d.waitLeftMs === undefined ? '' : (d.waitReason || 'waiting') + ': ' + duration(d.waitLeftMs) + ' left');
  set('stat-calls-free', d.callsFreeInMs === undefined ? '' : 'oldest leaves in ' + duration(d.callsFreeInMs));
}
setInterval(tick, 1000);
// Other loops' states, and loops started since: nothing streams those, so the list is re-read.
setInterval(() => loadLoops().catch(() => undefined), 10000);

loadLoops().then(connect, (error) => set('connection', 'cannot load loops: ' + error));
`;
