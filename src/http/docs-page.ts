/** A self-contained page that renders /api/openapi.json (no CDN: it works offline). */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>action-triggers API</title>
<style>
 body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#222}
 h1{margin-bottom:.2rem} .op{border:1px solid #ddd;border-radius:6px;margin:.6rem 0;padding:.5rem .8rem}
 .m{display:inline-block;min-width:4.5rem;font-weight:700;font-family:monospace}
 .GET{color:#0a6}.POST{color:#06c}.PUT{color:#b60}.PATCH{color:#a0a}.DELETE{color:#c22}
 code,pre{font-family:ui-monospace,monospace;font-size:13px} pre{background:#f6f6f6;padding:.6rem;overflow:auto}
 details summary{cursor:pointer}
</style></head>
<body><h1>action-triggers API</h1><p id="desc"></p><div id="ops">Loading /api/openapi.json…</div>
<h2>Schemas</h2><div id="schemas"></div>
<script>
fetch('/api/openapi.json').then(r => r.json()).then(doc => {
  const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
  const refName = s => (s && s.$ref ? s.$ref.split('/').pop() : undefined);
  const schemaOf = s => (refName(s) ? doc.components.schemas[refName(s)] : s);
  // An operation's request body: each media type, its schema (named and shown) and example.
  const bodyOf = op => !op.requestBody ? '' : Object.entries(op.requestBody.content || {}).map(([type, m]) =>
    '<details class="body"><summary>Request body: <code>' + esc(type) + '</code>' + (refName(m.schema) ? ' <code>' + esc(refName(m.schema)) + '</code>' : '')
    + (op.requestBody.required ? ' (required)' : '') + '</summary>'
    + (op.requestBody.description ? '<div>' + esc(op.requestBody.description) + '</div>' : '')
    + '<pre>' + esc(JSON.stringify(schemaOf(m.schema), null, 2)) + '</pre>'
    + (m.example !== undefined ? '<div>Example</div><pre>' + esc(JSON.stringify(m.example, null, 2)) + '</pre>' : '') + '</details>').join('');
  document.getElementById('desc').textContent = doc.info.description;
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const M = method.toUpperCase();
      const params = [...(item.parameters || []), ...(op.parameters || [])].map(p => '<code>' + esc(p.name) + '</code> (' + p.in + ')').join(', ');
      const responses = Object.entries(op.responses || {}).map(([s, r]) => '<code>' + s + '</code> ' + esc(r.description)).join('<br>');
      ops.push('<div class="op"><span class="m ' + M + '">' + M + '</span><code>' + esc(path) + '</code> — ' + esc(op.summary || '')
        + (params ? '<div>Parameters: ' + params + '</div>' : '') + bodyOf(op) + '<details><summary>Responses</summary>' + responses + '</details></div>');
    }
  }
  document.getElementById('ops').innerHTML = ops.join('');
  document.getElementById('schemas').innerHTML = Object.entries(doc.components.schemas)
    .map(([n, s]) => '<details id="schema-' + esc(n) + '"><summary><b>' + esc(n) + '</b></summary><pre>' + esc(JSON.stringify(s, null, 2)) + '</pre></details>').join('');
}).catch(e => { document.getElementById('ops').textContent = 'Could not load the document: ' + e; });
</script></body></html>`;
