// perflens HTML viewer: reads the data of <script id="perflens-data"> (its format is
// documented in src/export/html.h) and draws flame graph, icicle, top-down and
// bottom-up trees and callers/callees. Names from the data are only ever set with
// textContent, title or data attributes, never as HTML.
(function () {
  'use strict';

  const D = JSON.parse(document.getElementById('perflens-data').textContent);
  const nStacks = D.stacks.length / 2;
  const ROW = 18;  // px per flame graph level

  function frameName(f) { return f < 0 ? 'all' : D.names[D.frames[3 * f]]; }
  function frameDso(f) { return f < 0 ? '' : D.names[D.frames[3 * f + 1]]; }
  function frameKernel(f) { return f >= 0 && D.frames[3 * f + 2] === 1; }
  function stackParent(s) { return D.stacks[2 * s]; }
  function stackFrame(s) { return D.stacks[2 * s + 1]; }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fmtInt(n) { return Math.round(n).toLocaleString('en-US'); }
  function pct(n, total) { return total > 0 ? (100 * n / total).toFixed(2) + '%' : '0.00%'; }

  const state = {
    thread: -1,      // -1: all threads
    event: 0,
    view: 'flame',
    zoomPath: [],    // frames from the root's child down to the zoomed node
    search: '',
    exact: false,
    selected: -1,    // frame of the callers/callees view
    counts: null,    // per stack: samples with that leaf stack (the selection's)
    total: null,     // per stack: samples at or below it
    tree: null,      // top-down tree of the selection
    inverted: null,  // bottom-up tree, built when first shown
    grandTotal: 0,
  };

  // ---- Data for the selection (thread, event) ----

  function computeSelection() {
    const counts = new Float64Array(nStacks);
    for (const entry of D.counts) {
      const thread = entry[0], event = entry[1], pairs = entry[2];
      if (event !== state.event) continue;
      if (state.thread >= 0 && thread !== state.thread) continue;
      for (let i = 0; i < pairs.length; i += 2) counts[pairs[i]] += pairs[i + 1];
    }
    const total = Float64Array.from(counts);
    // A parent always comes before its children: one backward pass sums the subtrees.
    for (let s = nStacks - 1; s >= 0; --s) {
      const p = stackParent(s);
      if (p >= 0) total[p] += total[s];
    }
    state.counts = counts;
    state.total = total;
    state.tree = buildTree(counts, total);
    state.inverted = null;
    state.grandTotal = state.tree.total;
  }

  // Top-down: the stacks with samples are the tree's nodes.
  function buildTree(counts, total) {
    const root = { frame: -1, stack: -1, self: 0, total: 0, children: [], parent: null };
    const nodes = new Array(nStacks);
    for (let s = 0; s < nStacks; ++s) {
      if (!total[s]) continue;
      const p = stackParent(s);
      const parent = p < 0 ? root : nodes[p];
      const node = { frame: stackFrame(s), stack: s, self: counts[s], total: total[s], children: [], parent: parent };
      nodes[s] = node;
      parent.children.push(node);
      if (p < 0) root.total += total[s];
    }
    sortTree(root);
    return root;
  }

  function sortTree(node) {
    const todo = [node];
    while (todo.length) {
      const n = todo.pop();
      n.children.sort((a, b) => b.total - a.total || frameName(a.frame).localeCompare(frameName(b.frame)));
      for (const c of n.children) todo.push(c);
    }
  }

  // Bottom-up: each leaf stack's path inverted (leaf first). A top-level node's self is
  // the samples with that function as the leaf.
  function buildInverted() {
    const root = { frame: -1, self: 0, total: 0, children: [], map: new Map(), parent: null };
    for (let s = 0; s < nStacks; ++s) {
      const c = state.counts[s];
      if (!c) continue;
      root.total += c;
      let node = root;
      for (let x = s; x >= 0; x = stackParent(x)) {
        const f = stackFrame(x);
        let child = node.map.get(f);
        if (!child) {
          child = { frame: f, self: 0, total: 0, children: [], map: new Map(), parent: node };
          node.map.set(f, child);
          node.children.push(child);
        }
        child.total += c;
        if (node === root) child.self += c;
        node = child;
      }
    }
    sortTree(root);
    return root;
  }

  // ---- Search ----

  function matcher() {
    const q = state.search.trim();
    if (!q) return null;
    if (state.exact) return (name) => name === q;
    const lower = q.toLowerCase();
    return (name) => name.toLowerCase().indexOf(lower) >= 0;
  }

  // Samples whose stack holds a matching frame (each sample once), over the selection.
  function matchedSamples(match) {
    const matched = new Uint8Array(nStacks);
    let sum = 0;
    for (let s = 0; s < nStacks; ++s) {
      const p = stackParent(s);
      matched[s] = (p >= 0 && matched[p]) || match(frameName(stackFrame(s))) ? 1 : 0;
      if (matched[s]) sum += state.counts[s];
    }
    return sum;
  }

  function updateSearch() {
    const info = document.getElementById('match-info');
    const match = matcher();
    if (!match) {
      info.textContent = '';
      info.removeAttribute('data-matched');
    } else {
      const n = matchedSamples(match);
      info.textContent = 'matched: ' + fmtInt(n) + ' samples (' + pct(n, state.grandTotal) + ')';
      info.setAttribute('data-matched', String(n));
    }
    for (const e of document.querySelectorAll('.frame[data-name], .tree .row[data-name]')) {
      e.classList.toggle('match', !!match && match(e.getAttribute('data-name')));
    }
  }

  // ---- Flame graph and icicle ----

  function findZoomNode() {
    let node = state.tree;
    const kept = [];
    for (const f of state.zoomPath) {
      const next = node.children.find((c) => c.frame === f);
      if (!next) break;
      kept.push(f);
      node = next;
    }
    state.zoomPath = kept;
    return node;
  }

  function pathOf(node) {
    const path = [];
    for (let n = node; n && n.frame >= 0; n = n.parent) path.unshift(n.frame);
    return path;
  }

  function renderBreadcrumb(zoom) {
    const bc = document.getElementById('breadcrumb');
    bc.textContent = '';
    if (state.view !== 'flame' && state.view !== 'icicle') return;
    const reset = el('button', null, 'Reset zoom');
    reset.id = 'reset-zoom';
    reset.disabled = state.zoomPath.length === 0;
    reset.addEventListener('click', () => { state.zoomPath = []; render(); });
    bc.appendChild(reset);
    const all = el('span', 'crumb', 'all');
    all.addEventListener('click', () => { state.zoomPath = []; render(); });
    bc.appendChild(all);
    state.zoomPath.forEach((f, i) => {
      bc.appendChild(el('span', 'sep', '>'));
      const c = el('span', 'crumb', frameName(f));
      c.addEventListener('click', () => { state.zoomPath = state.zoomPath.slice(0, i + 1); render(); });
      bc.appendChild(c);
    });
    if (zoom.frame >= 0) {
      bc.appendChild(el('span', 'sep', ' '));
      bc.appendChild(el('span', null, fmtInt(zoom.total) + ' samples (' + pct(zoom.total, state.grandTotal) + ' of all)'));
    }
  }

  function color(node) {
    if (node.frame < 0) return '';
    const name = frameName(node.frame);
    let h = 0;
    for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    if (frameKernel(node.frame)) return 'hsl(' + (190 + h % 30) + ', 60%, 70%)';
    if (name.charAt(0) === '[') return 'hsl(0, 0%, ' + (72 + h % 12) + '%)';
    return 'hsl(' + (h % 55) + ', ' + (70 + h % 25) + '%, ' + (58 + (h >>> 8) % 15) + '%)';
  }

  function renderFlame(view, inverted) {
    const zoom = findZoomNode();
    renderBreadcrumb(zoom);
    const width = Math.max(view.clientWidth, 300);
    const scale = zoom.total > 0 ? width / zoom.total : 0;
    // Only frames of at least a pixel are drawn (and none below them).
    const placed = [];
    let maxDepth = 0;
    const todo = [[zoom, 0, 0]];
    while (todo.length) {
      const [node, depth, x] = todo.pop();
      placed.push([node, depth, x]);
      if (depth > maxDepth) maxDepth = depth;
      let cx = x;
      for (const c of node.children) {
        const w = c.total * scale;
        if (w >= 1) todo.push([c, depth + 1, cx]);
        cx += w;
      }
    }
    const box = el('div', 'flame');
    box.id = 'flame';
    box.setAttribute('data-kind', inverted ? 'icicle' : 'flame');
    box.setAttribute('data-root', zoom.frame >= 0 ? frameName(zoom.frame) : 'all');
    box.style.height = ((maxDepth + 1) * ROW + 2) + 'px';
    const frag = document.createDocumentFragment();
    for (const [node, depth, x] of placed) {
      const e = el('div', 'frame', node.frame >= 0 ? frameName(node.frame) : 'all');
      if (node.frame < 0) e.classList.add('root');
      if (frameKernel(node.frame)) e.classList.add('kernel');
      e.style.left = x + 'px';
      e.style.width = Math.max(node.total * scale, 1) + 'px';
      e.style.top = (inverted ? depth : maxDepth - depth) * ROW + 'px';
      const bg = color(node);
      if (bg) e.style.background = bg;
      e.setAttribute('data-name', node.frame >= 0 ? frameName(node.frame) : 'all');
      e.setAttribute('data-samples', String(node.total));
      e.setAttribute('data-depth', String(depth));
      if (node.frame >= 0) e.setAttribute('data-dso', frameDso(node.frame));
      e.title = describe(node);
      e.addEventListener('click', () => {
        state.zoomPath = pathOf(node);
        render();
      });
      e.addEventListener('mouseenter', () => { document.getElementById('status').textContent = describe(node); });
      frag.appendChild(e);
    }
    box.appendChild(frag);
    view.appendChild(box);
  }

  function describe(node) {
    if (node.frame < 0) return 'all: ' + fmtInt(node.total) + ' samples';
    return frameName(node.frame) + ' (' + frameDso(node.frame) + '): ' + fmtInt(node.total) + ' samples (' +
        pct(node.total, state.grandTotal) + '), self ' + fmtInt(node.self || 0);
  }

  // ---- Trees ----

  function treeHeader(container, firstLabel) {
    const head = el('div', 'row head');
    head.appendChild(el('span', 'num', firstLabel));
    head.appendChild(el('span', 'pct', '%'));
    head.appendChild(el('span', 'num', 'Self'));
    head.appendChild(el('span', 'pct', '%'));
    head.appendChild(el('span', 'name', 'Function'));
    container.appendChild(head);
  }

  function treeRow(node, depth, showSelf) {
    const row = el('div', 'row');
    row.setAttribute('data-name', frameName(node.frame));
    row.setAttribute('data-total', String(node.total));
    row.setAttribute('data-self', String(node.self));
    row.setAttribute('data-depth', String(depth));
    row.appendChild(el('span', 'num', fmtInt(node.total)));
    row.appendChild(el('span', 'pct', pct(node.total, state.grandTotal)));
    row.appendChild(el('span', 'num', showSelf ? fmtInt(node.self) : ''));
    row.appendChild(el('span', 'pct', showSelf ? pct(node.self, state.grandTotal) : ''));
    const label = el('span', 'name');
    label.style.paddingLeft = (depth * 14) + 'px';
    const toggle = el('span', 'toggle', node.children.length ? '+' : ' ');
    label.appendChild(toggle);
    label.appendChild(document.createTextNode(frameName(node.frame)));
    label.appendChild(el('span', 'dso', frameDso(node.frame)));
    row.appendChild(label);
    if (node.frame === state.selected) row.classList.add('selected');
    return row;
  }

  // Rows of `node`'s children after `after`, expanded on click.
  function insertChildren(container, node, depth, after, showSelf) {
    let anchor = after;
    for (const c of node.children) {
      const row = treeRow(c, depth, showSelf(depth));
      row.treeNode = c;
      row.expanded = false;
      row.querySelector('.toggle').addEventListener('click', (ev) => {
        ev.stopPropagation();
        toggleRow(container, row, depth, showSelf);
      });
      row.addEventListener('click', () => toggleRow(container, row, depth, showSelf));
      row.addEventListener('dblclick', () => { state.selected = c.frame; setView('callers'); });
      if (anchor) anchor.after(row); else container.appendChild(row);
      anchor = row;
    }
    return anchor;
  }

  function toggleRow(container, row, depth, showSelf) {
    const node = row.treeNode;
    state.selected = node.frame;
    for (const r of container.querySelectorAll('.row.selected')) r.classList.remove('selected');
    row.classList.add('selected');
    if (!node.children.length) return;
    if (row.expanded) {
      // Remove the rows below it that are deeper.
      let next = row.nextElementSibling;
      while (next && Number(next.getAttribute('data-depth')) > depth) {
        const n = next.nextElementSibling;
        next.remove();
        next = n;
      }
      row.expanded = false;
      row.querySelector('.toggle').textContent = '+';
    } else {
      insertChildren(container, node, depth + 1, row, showSelf);
      row.expanded = true;
      row.querySelector('.toggle').textContent = '-';
      updateSearch();
    }
  }

  function renderTree(view, inverted) {
    const root = inverted ? (state.inverted || (state.inverted = buildInverted())) : state.tree;
    const box = el('div', 'tree');
    box.id = inverted ? 'bottomup' : 'topdown';
    box.appendChild(el('p', 'note', inverted
      ? 'Bottom-up: functions by self samples; expand a row for its callers. Double-click a row for callers/callees.'
      : 'Top-down: call paths from the outermost frame. Double-click a row for callers/callees.'));
    treeHeader(box, 'Total');
    // Self is meaningful at every level top-down; bottom-up only for the leaf functions.
    insertChildren(box, root, 0, null, (depth) => !inverted || depth === 0);
    view.appendChild(box);
  }

  // ---- Callers / callees ----

  // Every frame's inclusive samples (each sample once even under recursion).
  function functionTotals() {
    const totals = new Map();
    for (let s = 0; s < nStacks; ++s) {
      const c = state.counts[s];
      if (!c) continue;
      const seen = new Set();
      for (let x = s; x >= 0; x = stackParent(x)) seen.add(stackFrame(x));
      for (const f of seen) totals.set(f, (totals.get(f) || 0) + c);
    }
    return totals;
  }

  function renderCallers(view) {
    const totals = functionTotals();
    const functions = Array.from(totals.keys()).sort((a, b) => totals.get(b) - totals.get(a));
    if (state.selected < 0 || !totals.has(state.selected)) state.selected = functions.length ? functions[0] : -1;
    const box = el('div', 'callers');
    box.id = 'callers';
    const pick = el('div', 'pick');
    const label = el('label', null, 'Function ');
    const select = el('select');
    select.id = 'function-select';
    for (const f of functions) {
      const o = el('option', null, frameName(f) + ' (' + frameDso(f) + ') ' + fmtInt(totals.get(f)));
      o.value = String(f);
      select.appendChild(o);
    }
    select.value = String(state.selected);
    select.addEventListener('change', () => { state.selected = Number(select.value); render(); });
    label.appendChild(select);
    pick.appendChild(label);
    box.appendChild(pick);
    if (state.selected >= 0) {
      const f = state.selected;
      const callers = new Map(), callees = new Map();
      // Per leaf stack, its edges into and out of f, each edge once per sample.
      for (let s = 0; s < nStacks; ++s) {
        const c = state.counts[s];
        if (!c) continue;
        const inEdges = new Set(), outEdges = new Set();
        let child = -2;  // frame below x on the path (-2: x is the leaf)
        for (let x = s; x >= 0; x = stackParent(x)) {
          const fx = stackFrame(x);
          if (fx === f) {
            const p = stackParent(x);
            inEdges.add(p >= 0 ? stackFrame(p) : -1);
            outEdges.add(child);
          }
          child = fx;
        }
        for (const e of inEdges) callers.set(e, (callers.get(e) || 0) + c);
        for (const e of outEdges) callees.set(e, (callees.get(e) || 0) + c);
      }
      const total = totals.get(f);
      pick.appendChild(el('p', null, frameName(f) + ': ' + fmtInt(total) + ' samples (' + pct(total, state.grandTotal) +
          ') in ' + frameDso(f)));
      box.appendChild(edgeList('Callers', 'callers-list', callers, total, 'outermost (no caller)'));
      box.appendChild(edgeList('Callees', 'callees-list', callees, total, 'self (no callee)'));
    }
    view.appendChild(box);
  }

  function edgeList(title, id, map, total, noneLabel) {
    const section = el('div', 'tree');
    section.id = id;
    section.appendChild(el('h3', null, title));
    const head = el('div', 'row head');
    head.appendChild(el('span', 'num', 'Samples'));
    head.appendChild(el('span', 'pct', '%'));
    head.appendChild(el('span', 'name', 'Function'));
    section.appendChild(head);
    const entries = Array.from(map.entries()).sort((a, b) => b[1] - a[1]);
    for (const [f, n] of entries) {
      const row = el('div', 'row');
      const name = f >= 0 ? frameName(f) : noneLabel;
      row.setAttribute('data-name', name);
      row.setAttribute('data-samples', String(n));
      row.appendChild(el('span', 'num', fmtInt(n)));
      row.appendChild(el('span', 'pct', pct(n, total)));
      const label = el('span', 'name', name);
      if (f >= 0) {
        label.appendChild(el('span', 'dso', frameDso(f)));
        row.addEventListener('click', () => { state.selected = f; render(); });
      }
      row.appendChild(label);
      section.appendChild(row);
    }
    return section;
  }

  // ---- Controls ----

  function setView(v) {
    state.view = v;
    for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.getAttribute('data-view') === v);
    render();
  }

  function render() {
    const view = document.getElementById('view');
    view.textContent = '';
    view.setAttribute('data-view', state.view);
    document.getElementById('total-samples').textContent = String(state.grandTotal);
    document.getElementById('total-samples').setAttribute('data-total', String(state.grandTotal));
    if (state.view === 'flame' || state.view === 'icicle') {
      renderFlame(view, state.view === 'icicle');
    } else {
      renderBreadcrumb(null);
      if (state.view === 'topdown') renderTree(view, false);
      else if (state.view === 'bottomup') renderTree(view, true);
      else renderCallers(view);
    }
    updateSearch();
    document.body.setAttribute('data-ready', '1');
  }

  function fillSelectors() {
    const threadSelect = document.getElementById('thread-select');
    const perThread = new Map();
    for (const entry of D.counts) {
      let n = 0;
      const pairs = entry[2];
      for (let i = 1; i < pairs.length; i += 2) n += pairs[i];
      perThread.set(entry[0], (perThread.get(entry[0]) || 0) + n);
    }
    const all = el('option', null, 'All threads');
    all.value = '-1';
    threadSelect.appendChild(all);
    const order = Array.from(perThread.keys()).sort((a, b) => perThread.get(b) - perThread.get(a));
    for (const t of order) {
      const pid = D.threads[3 * t], tid = D.threads[3 * t + 1], comm = D.threads[3 * t + 2];
      const o = el('option', null, comm + ' ' + pid + '/' + tid + ' (' + fmtInt(perThread.get(t)) + ')');
      o.value = String(t);
      threadSelect.appendChild(o);
    }
    threadSelect.addEventListener('change', () => {
      state.thread = Number(threadSelect.value);
      computeSelection();
      render();
    });
    const eventSelect = document.getElementById('event-select');
    D.events.forEach((name, i) => {
      const o = el('option', null, name + ' (' + fmtInt(D.totals[i] || 0) + ')');
      o.value = String(i);
      eventSelect.appendChild(o);
    });
    // Start on the first event with samples.
    const first = D.totals.findIndex((t) => t > 0);
    state.event = first >= 0 ? first : 0;
    eventSelect.value = String(state.event);
    eventSelect.addEventListener('change', () => {
      state.event = Number(eventSelect.value);
      computeSelection();
      render();
    });
  }

  function init() {
    document.getElementById('status').textContent = 'Source: ' + D.source +
        ' (source lines are not in this report)';
    fillSelectors();
    for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setView(b.getAttribute('data-view')));
    const search = document.getElementById('search');
    search.addEventListener('input', () => { state.search = search.value; updateSearch(); });
    const exact = document.getElementById('search-exact');
    exact.addEventListener('change', () => { state.exact = exact.checked; updateSearch(); });
    let resizeTimer = 0;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => { if (state.view === 'flame' || state.view === 'icicle') render(); }, 100);
    });
    computeSelection();
    render();
  }

  init();
})();
