/**
 * The dashboard page. Plain HTML and CSS, no build step and nothing fetched from elsewhere: the
 * server sends numbers and a ready-made SVG chart, the script (client.ts) only fills them in.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ralph dashboard</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header>
  <h1>ralph</h1>
  <span id="feature" class="feature"></span>
  <span id="stat-state" class="badge">…</span>
  <span id="connection" class="connection">connecting…</span>
</header>
<noscript><p class="noscript">Without JavaScript this page shows the figures as of loading it: reload for new ones.</p></noscript>
<div class="layout">
  <nav>
    <h2>Loops</h2>
    <ul id="loops"></ul>
  </nav>
  <main>
    <section class="cards">
      <div class="card"><div class="label">Iteration</div><div class="value" id="stat-iteration">-</div><div class="sub" id="stat-iteration-time"></div></div>
      <div class="card"><div class="label">Stories passing</div><div class="value" id="stat-stories">-</div><div class="progress"><div id="stat-progress"></div></div></div>
      <div class="card"><div class="label">Cost</div><div class="value" id="stat-cost">-</div><div class="sub" id="stat-tokens"></div></div>
      <div class="card"><div class="label">Elapsed</div><div class="value" id="stat-elapsed">-</div><div class="sub" id="stat-current"></div></div>
      <div class="card"><div class="label">Calls this hour</div><div class="value" id="stat-calls">-</div><div class="sub" id="stat-calls-free"></div><div class="sub" id="stat-usage"></div></div>
      <div class="card"><div class="label">Breaker</div><div class="value" id="stat-breaker">-</div><div class="sub" id="stat-wait"></div></div>
    </section>
    <section>
      <h2>Iterations <span class="hint">bar height: duration · colour: result · dot: cost · click a bar for its log</span></h2>
      <div id="chart" class="chart"></div>
      <div class="legend">
        <span><i style="background:#2e9d4f"></i>progress</span><span><i style="background:#1f7a3a"></i>complete</span>
        <span><i style="background:#9aa3ad"></i>no progress</span><span><i style="background:#d0454c"></i>error</span>
        <span><i style="background:#e07b24"></i>timeout</span><span><i style="background:#c9a227"></i>canceled</span>
        <span><i style="background:#3b82f6"></i>running</span>
      </div>
    </section>
    <section class="columns">
      <div>
        <h2>Stories</h2>
        <table id="stories"><thead><tr><th>Story</th><th>Status</th><th class="num">Attempts</th><th class="num">Time</th><th class="num">Cost</th></tr></thead><tbody></tbody></table>
      </div>
      <div>
        <h2>Recent iterations</h2>
        <table id="iterations"><thead><tr><th>#</th><th>Story</th><th>Result</th><th class="num">Time</th><th class="num">Cost</th><th>Log</th></tr></thead><tbody></tbody></table>
      </div>
    </section>
    <section>
      <h2>Events</h2>
      <ol id="events" class="events"></ol>
    </section>
  </main>
</div>
</body>
</html>
`;

export const PAGE_CSS = `
:root { --bg:#f6f7f9; --card:#fff; --ink:#1d2430; --muted:#6b7280; --line:#e3e6ea; --accent:#3b82f6; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--ink); }
header { display:flex; align-items:center; gap:12px; padding:10px 20px; background:#1d2430; color:#fff; }
header h1 { margin:0; font-size:18px; letter-spacing:.5px; }
.feature { font-weight:600; }
.connection { margin-left:auto; font-size:12px; color:#cbd5e1; }
.badge { padding:2px 10px; border-radius:999px; font-size:12px; font-weight:700; background:#64748b; color:#fff; }
.state-RUNNING { background:#2563eb; } .state-COMPLETE { background:#16a34a; } .state-PAUSED { background:#ca8a04; }
.state-REACHED_LIMIT { background:#ea580c; } .state-ERROR, .state-ORPHANED { background:#dc2626; } .state-NEW { background:#64748b; }
.layout { display:grid; grid-template-columns:220px 1fr; min-height:calc(100vh - 48px); }
nav { border-right:1px solid var(--line); padding:12px; background:#fff; }
nav ul { list-style:none; margin:0; padding:0; }
nav li a { display:flex; justify-content:space-between; align-items:center; gap:6px; padding:6px 8px; border-radius:6px; color:var(--ink); text-decoration:none; font-size:13px; overflow-wrap:anywhere; }
nav li a.selected { background:#e8effd; font-weight:600; }
nav li a .badge { flex:none; font-size:10px; padding:1px 6px; white-space:nowrap; }
main { padding:16px 20px; min-width:0; }
h2 { font-size:14px; margin:16px 0 8px; color:#334155; }
.hint { font-weight:400; color:var(--muted); font-size:12px; }
.cards { display:grid; grid-template-columns:repeat(6, minmax(120px, 1fr)); gap:10px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
.label { font-size:11px; text-transform:uppercase; color:var(--muted); letter-spacing:.4px; }
.value { font-size:22px; font-weight:700; margin-top:2px; font-variant-numeric:tabular-nums; }
.sub { font-size:12px; color:var(--muted); min-height:16px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.progress { height:6px; background:#e5e7eb; border-radius:3px; margin-top:6px; overflow:hidden; }
.progress div { height:100%; width:0; background:#16a34a; transition:width .3s; }
.chart { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:6px; }
.chart svg { width:100%; height:auto; display:block; }
.chart .tick { font-size:10px; fill:var(--muted); } .chart .axis { stroke:#cbd5e1; }
.chart .cost-dot { fill:#fff; stroke:#7c3aed; stroke-width:2; } .chart .cost { fill:#7c3aed; }
.chart a.bar:hover rect { opacity:.75; }
.legend { display:flex; flex-wrap:wrap; gap:12px; font-size:12px; color:var(--muted); margin-top:6px; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:-1px; }
.columns { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
table { width:100%; border-collapse:collapse; background:var(--card); border:1px solid var(--line); border-radius:8px; font-size:13px; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); }
th { font-size:11px; text-transform:uppercase; color:var(--muted); }
.num { text-align:right; font-variant-numeric:tabular-nums; }
.title { color:var(--muted); font-size:12px; }
.passing { color:#16a34a; font-weight:600; } .working { color:#2563eb; font-weight:600; } .open { color:var(--muted); }
.events { list-style:none; margin:0; padding:8px; overflow-wrap:anywhere; background:#0f172a; color:#e2e8f0; border-radius:8px; font:12px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; max-height:320px; overflow:auto; }
.events time { color:#64748b; margin-right:8px; }
.k-good { color:#4ade80; } .k-bad { color:#f87171; } .k-warn { color:#fbbf24; } .k-iteration { color:#c084fc; } .k-run { color:#67e8f9; } .k-text { color:#94a3b8; }
@media (max-width: 900px) { .cards { grid-template-columns:repeat(2, minmax(0, 1fr)); } .columns, .layout { grid-template-columns:minmax(0, 1fr); } }
/* A phone (360 px): nothing wider than the screen; a wide table scrolls inside itself. */
@media (max-width: 600px) {
  header { flex-wrap:wrap; padding:8px 12px; gap:8px; }
  main { padding:10px; }
  nav { border-right:none; border-bottom:1px solid var(--line); }
  .value { font-size:18px; }
  table { display:block; overflow-x:auto; }
}
.noscript { margin:0; padding:6px 20px; background:#fef3c7; color:#78350f; font-size:13px; }
`;
