// perflens HTML viewer: reads the data of the script element #perflens-data (gzip, then
// base64; its format is documented in src/export/html.h) and draws flame graph, icicle, top-down and
// bottom-up trees and callers/callees. Names from the data are only ever set with
// textContent, title or data attributes, never as HTML.
(async function () {
  'use strict';

  // The data: base64 → bytes → DecompressionStream('gzip') → JSON text.
  async function loadData() {
    const b64 = document.getElementById('perflens-data').textContent;
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }
  const D = await loadData();
  const ROW = 18;  // px per flame graph level

  // ---- The data, decoded once into typed arrays (stacks are tree nodes) ----

  // The stack string (src/export/html.h): two base-32 numbers per stack (levels climbed
  // from the previous stack's child, frame), least significant digit first, a digit's
  // character index holding 32 when more follow.
  const DIGIT = new Int8Array(128).fill(-1);
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => {
    DIGIT[c.charCodeAt(0)] = i;
  });
  let nNumbers = 0;
  for (let i = 0; i < D.stacks.length; ++i) if (DIGIT[D.stacks.charCodeAt(i)] < 32) ++nNumbers;
  const nStacks = nNumbers >> 1;
  const nFrames = D.frames.length / 3;
  const PARENT = new Int32Array(nStacks);  // -1: a root (outermost frame)
  const FRAME = new Int32Array(nStacks);
  {
    let pos = 0;
    const next = () => {
      let v = 0, scale = 1, d;
      do {
        d = DIGIT[D.stacks.charCodeAt(pos++)];
        v += (d & 31) * scale;
        scale *= 32;
      } while (d & 32);
      return v;
    };
    const path = [];  // the stacks from a root to the previous one
    let depth = -1;
    for (let i = 0; i < nStacks; ++i) {
      depth = depth + 1 - next();
      PARENT[i] = depth > 0 ? path[depth - 1] : -1;
      path[depth] = i;
      FRAME[i] = next();
    }
  }
  D.stacks = null;
  for (const entry of D.counts) {  // leaf stack deltas → leaf stacks
    const pairs = entry[2];
    let s = 0;
    for (let i = 0; i < pairs.length; i += 2) {
      s += pairs[i];
      pairs[i] = s;
    }
  }
  // `perflens diff --html`: the baseline's samples, in the same stacks (html.h "base").
  const BASE = D.base || null;
  if (BASE) {
    for (const entry of BASE.counts) {
      const pairs = entry[2];
      let s = 0;
      for (let i = 0; i < pairs.length; i += 2) {
        s += pairs[i];
        pairs[i] = s;
      }
    }
  }
  // Children of each stack, in one array (CSR): CHILDREN[CHILD_START[s] .. CHILD_START[s + 1]).
  const CHILD_START = new Int32Array(nStacks + 1);
  const ROOTS = [];
  for (let i = 0; i < nStacks; ++i) {
    if (PARENT[i] >= 0) CHILD_START[PARENT[i] + 1]++;
    else ROOTS.push(i);
  }
  for (let i = 0; i < nStacks; ++i) CHILD_START[i + 1] += CHILD_START[i];
  const CHILDREN = new Int32Array(Math.max(CHILD_START[nStacks], 1));
  {
    const fill = CHILD_START.slice(0, nStacks);
    for (let i = 0; i < nStacks; ++i) if (PARENT[i] >= 0) CHILDREN[fill[PARENT[i]]++] = i;
  }

  function frameName(f) { return f < 0 ? 'all' : D.names[D.frames[3 * f]]; }
  function frameDso(f) { return f < 0 ? '' : D.names[D.frames[3 * f + 1]]; }
  function frameKernel(f) { return f >= 0 && D.frames[3 * f + 2] === 1; }
  // "file:line" of a function's entry address where DWARF gave it (data "srclines"), else ''.
  const SRCLINE = new Map();
  for (let i = 0; D.srclines && i + 1 < D.srclines.length; i += 2) SRCLINE.set(D.srclines[i], D.names[D.srclines[i + 1]]);
  function frameSrcline(f) { return SRCLINE.get(f) || ''; }

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
    kids: new Map(), // stack (-1: root) → its children with samples, sorted
    inverted: null,  // bottom-up roots, built when first shown
    grandTotal: 0,
    baseTotal: null, // diff --html: the baseline's samples at or below each stack
    baseGrand: 0,
    maxChange: 0,
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
    for (let s = nStacks - 1; s >= 0; --s) if (PARENT[s] >= 0) total[PARENT[s]] += total[s];
    state.counts = counts;
    state.total = total;
    state.kids = new Map();
    state.inverted = null;
    state.grandTotal = 0;
    for (const r of ROOTS) state.grandTotal += total[r];
    if (BASE) computeBaseline();
  }

  // The baseline's samples per stack for the selection: its event of the same name, and
  // with a thread selected, the baseline's threads of that comm (a rerun has other
  // pids). maxChange: the largest change of share, the colour scale's end.
  function computeBaseline() {
    const counts = new Float64Array(nStacks);
    const comm = state.thread >= 0 ? D.threads[3 * state.thread + 2] : null;
    for (const entry of BASE.counts) {
      if (entry[1] !== state.event) continue;
      if (comm !== null && D.threads[3 * entry[0] + 2] !== comm) continue;
      const pairs = entry[2];
      for (let i = 0; i < pairs.length; i += 2) counts[pairs[i]] += pairs[i + 1];
    }
    for (let s = nStacks - 1; s >= 0; --s) if (PARENT[s] >= 0) counts[PARENT[s]] += counts[s];
    state.baseTotal = counts;
    state.baseGrand = 0;
    for (const r of ROOTS) state.baseGrand += counts[r];
    state.maxChange = 0;
    for (let s = 0; s < nStacks; ++s) state.maxChange = Math.max(state.maxChange, Math.abs(change(s)));
  }

  // The stack's share of the new file's samples minus its share of the baseline's, in
  // percentage points.
  function change(x) {
    const now = state.grandTotal > 0 ? state.total[x] / state.grandTotal : 0;
    const before = state.baseGrand > 0 ? state.baseTotal[x] / state.baseGrand : 0;
    return 100 * (now - before);
  }

  // The change of share the deepest colour stands for: the largest change, but at least
  // 5 percentage points, so that two runs of one program (changes of a few tenths) stay
  // pale instead of painting their noise as deep as a real regression.
  const MIN_SCALE = 5;
  function colorScale() { return Math.max(state.maxChange, MIN_SCALE); }

  // Red: a larger share than in the baseline, blue: a smaller one, the deeper the more
  // (relative to colorScale()); grey: the same to the printed 0.01%.
  function diffColor(x) {
    if (x < 0) return '';
    const c = change(x);
    if (Math.abs(c) < 0.005) return 'hsl(0, 0%, 88%)';
    const t = Math.min(1, Math.abs(c) / colorScale());
    return 'hsl(' + (c > 0 ? 0 : 215) + ', 85%, ' + (92 - 42 * t).toFixed(1) + '%)';
  }

  // As diff prints a delta: two decimals, a sign, no "-0.00%".
  function fmtChange(c) {
    if (Math.abs(c) < 0.005) return '+0.00%';
    return (c > 0 ? '+' : '') + c.toFixed(2) + '%';
  }

  function byTotalThenName(total, frameOf) {
    return (a, b) => total(b) - total(a) || frameName(frameOf(a)).localeCompare(frameName(frameOf(b)));
  }

  // Top-down: the nodes are stacks (-1: the root "all").
  const topDown = {
    frame: (x) => (x < 0 ? -1 : FRAME[x]),
    total: (x) => (x < 0 ? state.grandTotal : state.total[x]),
    self: (x) => (x < 0 ? 0 : state.counts[x]),
    children: (x) => {
      let kids = state.kids.get(x);
      if (!kids) {
        const all = x < 0 ? ROOTS : CHILDREN.subarray(CHILD_START[x], CHILD_START[x + 1]);
        kids = Array.from(all).filter((c) => state.total[c] > 0);
        kids.sort(byTotalThenName((c) => state.total[c], (c) => FRAME[c]));
        state.kids.set(x, kids);
      }
      return kids;
    },
    hasChildren: (x) => topDown.children(x).length > 0,
  };

  // Bottom-up: a node is a call path read from the leaf, {frame, total, self, entries:
  // [stack, samples, ...] (the stacks at its outer end)}; its children (the callers)
  // are made when first asked for. A top-level node's self is the samples with that
  // function as the leaf.
  function invertedGroup(entries, step) {
    const byFrame = new Map();
    for (let i = 0; i < entries.length; i += 2) {
      const x = step(entries[i]);
      if (x < 0) continue;
      const c = entries[i + 1];
      let n = byFrame.get(FRAME[x]);
      if (!n) {
        n = { frame: FRAME[x], total: 0, self: 0, entries: [], kids: null };
        byFrame.set(FRAME[x], n);
      }
      n.total += c;
      n.entries.push(x, c);
    }
    return Array.from(byFrame.values()).sort(byTotalThenName((n) => n.total, (n) => n.frame));
  }
  const bottomUp = {
    frame: (n) => n.frame,
    total: (n) => n.total,
    self: (n) => n.self,
    children: (n) => n.kids || (n.kids = invertedGroup(n.entries, (x) => PARENT[x])),
    hasChildren: (n) => {
      for (let i = 0; i < n.entries.length; i += 2) if (PARENT[n.entries[i]] >= 0) return true;
      return false;
    },
  };
  function invertedRoots() {
    if (!state.inverted) {
      const leaves = [];
      for (let s = 0; s < nStacks; ++s) if (state.counts[s]) leaves.push(s, state.counts[s]);
      state.inverted = invertedGroup(leaves, (x) => x);
      for (const n of state.inverted) n.self = n.total;
    }
    return state.inverted;
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
    const frameMatches = new Uint8Array(nFrames);
    for (let f = 0; f < nFrames; ++f) frameMatches[f] = match(frameName(f)) ? 1 : 0;
    const matched = new Uint8Array(nStacks);
    let sum = 0;
    for (let s = 0; s < nStacks; ++s) {
      const p = PARENT[s];
      matched[s] = (p >= 0 && matched[p]) || frameMatches[FRAME[s]];
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
      info.removeAttribute('data-query');
    } else {
      const n = matchedSamples(match);
      info.textContent = 'matched: ' + fmtInt(n) + ' samples (' + pct(n, state.grandTotal) + ')';
      info.setAttribute('data-matched', String(n));
      info.setAttribute('data-query', state.search.trim());
    }
    for (const e of document.querySelectorAll('.frame[data-name], .tree .row[data-name]')) {
      e.classList.toggle('match', !!match && match(e.getAttribute('data-name')));
    }
  }

  // ---- Flame graph and icicle ----

  // The zoomed stack (-1: none) along state.zoomPath, cut where the selection has none.
  function findZoomNode() {
    let node = -1;
    const kept = [];
    for (const f of state.zoomPath) {
      const next = topDown.children(node).find((c) => FRAME[c] === f);
      if (next === undefined) break;
      kept.push(f);
      node = next;
    }
    state.zoomPath = kept;
    return node;
  }

  function pathOf(x) {
    const path = [];
    for (let s = x; s >= 0; s = PARENT[s]) path.unshift(FRAME[s]);
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
    if (zoom >= 0) {
      bc.appendChild(el('span', 'sep', ' '));
      bc.appendChild(el('span', null, fmtInt(state.total[zoom]) + ' samples (' +
          pct(state.total[zoom], state.grandTotal) + ' of all)'));
    }
  }

  function color(f) {
    if (f < 0) return '';
    const name = frameName(f);
    let h = 0;
    for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    if (frameKernel(f)) return 'hsl(' + (190 + h % 30) + ', 60%, 70%)';
    if (name.charAt(0) === '[') return 'hsl(0, 0%, ' + (72 + h % 12) + '%)';
    return 'hsl(' + (h % 55) + ', ' + (70 + h % 25) + '%, ' + (58 + (h >>> 8) % 15) + '%)';
  }

  function describe(x) {
    if (x < 0) {
      return 'all: ' + fmtInt(state.grandTotal) + ' samples' +
          (BASE ? ', baseline ' + fmtInt(state.baseGrand) + ' samples' : '');
    }
    const src = frameSrcline(FRAME[x]);
    const text = frameName(FRAME[x]) + ' (' + frameDso(FRAME[x]) + (src ? ', entry at ' + src : '') + '): ' +
        fmtInt(state.total[x]) + ' samples (' + pct(state.total[x], state.grandTotal) + '), self ' +
        fmtInt(state.counts[x]);
    if (!BASE) return text;
    return text + '; baseline ' + fmtInt(state.baseTotal[x]) + ' samples (' +
        pct(state.baseTotal[x], state.baseGrand) + '), change ' + fmtChange(change(x));
  }

  function renderFlame(view, inverted) {
    const zoom = findZoomNode();
    renderBreadcrumb(zoom);
    const width = Math.max(view.clientWidth, 300);
    const zoomTotal = topDown.total(zoom);
    const scale = zoomTotal > 0 ? width / zoomTotal : 0;
    // Only frames of at least a pixel are drawn (and none below them).
    const placed = [];
    let maxDepth = 0;
    const todo = [[zoom, 0, 0]];
    while (todo.length) {
      const [x, depth, left] = todo.pop();
      placed.push([x, depth, left]);
      if (depth > maxDepth) maxDepth = depth;
      let cx = left;
      for (const c of topDown.children(x)) {
        const w = state.total[c] * scale;
        if (w < 1) break;  // sorted by total: the rest are narrower
        todo.push([c, depth + 1, cx]);
        cx += w;
      }
    }
    const box = el('div', 'flame');
    box.id = 'flame';
    box.setAttribute('data-kind', inverted ? 'icicle' : 'flame');
    box.setAttribute('data-root', zoom >= 0 ? frameName(FRAME[zoom]) : 'all');
    box.style.height = ((maxDepth + 1) * ROW + 2) + 'px';
    const frag = document.createDocumentFragment();
    for (const [x, depth, left] of placed) {
      const f = topDown.frame(x);
      const e = el('div', 'frame', frameName(f));
      if (f < 0) e.classList.add('root');
      if (frameKernel(f)) e.classList.add('kernel');
      e.style.left = left + 'px';
      e.style.width = Math.max(topDown.total(x) * scale, 1) + 'px';
      e.style.top = (inverted ? depth : maxDepth - depth) * ROW + 'px';
      const bg = BASE ? diffColor(x) : color(f);
      if (bg) e.style.background = bg;
      if (BASE && x >= 0) {
        e.setAttribute('data-base-samples', String(state.baseTotal[x]));
        e.setAttribute('data-change', change(x).toFixed(4));
      }
      e.setAttribute('data-name', frameName(f));
      e.setAttribute('data-samples', String(topDown.total(x)));
      e.setAttribute('data-depth', String(depth));
      if (f >= 0) e.setAttribute('data-dso', frameDso(f));
      if (frameSrcline(f)) e.setAttribute('data-srcline', frameSrcline(f));
      e.title = describe(x);
      e.addEventListener('click', () => {
        state.zoomPath = pathOf(x);
        render();
      });
      e.addEventListener('mouseenter', () => { document.getElementById('status').textContent = describe(x); });
      frag.appendChild(e);
    }
    box.appendChild(frag);
    view.appendChild(box);
  }

  // ---- Trees (top-down and bottom-up through their adapters) ----

  function treeHeader(container, firstLabel) {
    const head = el('div', 'row head');
    head.appendChild(el('span', 'num', firstLabel));
    head.appendChild(el('span', 'pct', '%'));
    head.appendChild(el('span', 'num', 'Self'));
    head.appendChild(el('span', 'pct', '%'));
    head.appendChild(el('span', 'name', 'Function'));
    container.appendChild(head);
  }

  function treeRow(tree, node, depth, showSelf) {
    const f = tree.frame(node);
    const row = el('div', 'row');
    row.setAttribute('data-name', frameName(f));
    row.setAttribute('data-total', String(tree.total(node)));
    row.setAttribute('data-self', String(tree.self(node)));
    row.setAttribute('data-depth', String(depth));
    row.appendChild(el('span', 'num', fmtInt(tree.total(node))));
    row.appendChild(el('span', 'pct', pct(tree.total(node), state.grandTotal)));
    row.appendChild(el('span', 'num', showSelf ? fmtInt(tree.self(node)) : ''));
    row.appendChild(el('span', 'pct', showSelf ? pct(tree.self(node), state.grandTotal) : ''));
    const label = el('span', 'name');
    label.style.paddingLeft = (depth * 14) + 'px';
    label.appendChild(el('span', 'toggle', tree.hasChildren(node) ? '+' : ' '));
    label.appendChild(document.createTextNode(frameName(f)));
    label.appendChild(el('span', 'dso', frameDso(f)));
    row.appendChild(label);
    if (f === state.selected) row.classList.add('selected');
    return row;
  }

  // Rows of `node`'s children after `after` (null: at the end), expanded on click.
  function insertChildren(container, tree, node, depth, after, showSelf) {
    let anchor = after;
    for (const c of tree.children(node)) {
      const row = treeRow(tree, c, depth, showSelf(depth));
      row.treeNode = c;
      row.expanded = false;
      row.addEventListener('click', () => toggleRow(container, tree, row, depth, showSelf));
      row.addEventListener('dblclick', () => { state.selected = tree.frame(c); setView('callers'); });
      if (anchor) anchor.after(row); else container.appendChild(row);
      anchor = row;
    }
  }

  function toggleRow(container, tree, row, depth, showSelf) {
    const node = row.treeNode;
    state.selected = tree.frame(node);
    for (const r of container.querySelectorAll('.row.selected')) r.classList.remove('selected');
    row.classList.add('selected');
    if (!tree.hasChildren(node)) return;
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
      insertChildren(container, tree, node, depth + 1, row, showSelf);
      row.expanded = true;
      row.querySelector('.toggle').textContent = '-';
      updateSearch();
    }
  }

  function renderTree(view, inverted) {
    const box = el('div', 'tree');
    box.id = inverted ? 'bottomup' : 'topdown';
    box.appendChild(el('p', 'note', inverted
      ? 'Bottom-up: functions by self samples; click a row for its callers. Double-click for callers/callees.'
      : 'Top-down: call paths from the outermost frame; click a row for its callees. Double-click for callers/callees.'));
    treeHeader(box, 'Total');
    // Self is meaningful at every level top-down; bottom-up only for the leaf functions.
    if (inverted) {
      const root = { frame: -1, total: state.grandTotal, self: 0, entries: [], kids: invertedRoots() };
      insertChildren(box, bottomUp, root, 0, null, (depth) => depth === 0);
    } else {
      insertChildren(box, topDown, -1, 0, null, () => true);
    }
    view.appendChild(box);
  }

  // ---- Callers / callees ----

  // Every frame's inclusive samples (each sample once even under recursion): a walk
  // over the stack tree counting each frame's occurrences on the current path.
  function functionTotals() {
    const totals = new Float64Array(nFrames);
    const active = new Int32Array(nFrames);
    const todo = ROOTS.slice();
    while (todo.length) {
      const x = todo.pop();
      if (x < 0) {  // leaving ~x
        active[FRAME[~x]]--;
        continue;
      }
      if (!state.total[x]) continue;
      const f = FRAME[x];
      if (!active[f]) totals[f] += state.total[x];
      active[f]++;
      todo.push(~x);
      for (let i = CHILD_START[x]; i < CHILD_START[x + 1]; ++i) todo.push(CHILDREN[i]);
    }
    return totals;
  }

  function renderCallers(view) {
    const totals = functionTotals();
    const functions = [];
    for (let f = 0; f < nFrames; ++f) if (totals[f] > 0) functions.push(f);
    functions.sort((a, b) => totals[b] - totals[a] || frameName(a).localeCompare(frameName(b)));
    if (state.selected < 0 || !(totals[state.selected] > 0)) state.selected = functions.length ? functions[0] : -1;
    const box = el('div', 'callers');
    box.id = 'callers';
    const pick = el('div', 'pick');
    const label = el('label', null, 'Function ');
    const select = el('select');
    select.id = 'function-select';
    for (const f of functions) {
      const o = el('option', null, frameName(f) + ' (' + frameDso(f) + ') ' + fmtInt(totals[f]));
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
      // Per leaf stack holding f, its edges into and out of f, each edge once per sample.
      const inEdges = new Set(), outEdges = new Set();
      for (let s = 0; s < nStacks; ++s) {
        const c = state.counts[s];
        if (!c) continue;
        inEdges.clear();
        outEdges.clear();
        let child = -2;  // frame below x on the path (-2: x is the leaf)
        for (let x = s; x >= 0; x = PARENT[x]) {
          if (FRAME[x] === f) {
            inEdges.add(PARENT[x] >= 0 ? FRAME[PARENT[x]] : -1);
            outEdges.add(child);
          }
          child = FRAME[x];
        }
        for (const e of inEdges) callers.set(e, (callers.get(e) || 0) + c);
        for (const e of outEdges) callees.set(e, (callees.get(e) || 0) + c);
      }
      const total = totals[f];
      const summary = el('p', null, frameName(f) + ': ' + fmtInt(total) + ' samples (' + pct(total, state.grandTotal) +
          ') in ' + frameDso(f));
      const src = frameSrcline(f);
      if (src) {
        const where = el('span', 'srcline', ', entry at ' + src);
        where.id = 'selected-srcline';
        summary.appendChild(where);
      }
      pick.appendChild(summary);
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
    if (BASE) {
      const base = document.getElementById('base-total');
      base.textContent = fmtInt(state.baseGrand);
      base.setAttribute('data-total', String(state.baseGrand));
      const scale = document.getElementById('diff-scale');
      scale.textContent = '\u00b1' + colorScale().toFixed(2) + '%';
      scale.setAttribute('data-scale', colorScale().toFixed(4));
    }
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

  // The thread options with their samples in the current event, most first.
  function fillThreads() {
    const threadSelect = document.getElementById('thread-select');
    const perThread = new Map();
    for (const entry of D.counts) {
      if (entry[1] !== state.event) continue;
      let n = 0;
      const pairs = entry[2];
      for (let i = 1; i < pairs.length; i += 2) n += pairs[i];
      perThread.set(entry[0], (perThread.get(entry[0]) || 0) + n);
    }
    threadSelect.textContent = '';
    const all = el('option', null, 'All threads');
    all.value = '-1';
    threadSelect.appendChild(all);
    const order = Array.from(perThread.keys()).sort((a, b) => perThread.get(b) - perThread.get(a) || a - b);
    for (const t of order) {
      const pid = D.threads[3 * t], tid = D.threads[3 * t + 1], comm = D.threads[3 * t + 2];
      const o = el('option', null, comm + ' ' + pid + '/' + tid + ' (' + fmtInt(perThread.get(t)) + ')');
      o.value = String(t);
      threadSelect.appendChild(o);
    }
    if (!perThread.has(state.thread)) state.thread = -1;
    threadSelect.value = String(state.thread);
  }

  function fillSelectors() {
    const threadSelect = document.getElementById('thread-select');
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
    fillThreads();
    eventSelect.addEventListener('change', () => {
      state.event = Number(eventSelect.value);
      fillThreads();
      computeSelection();
      render();
    });
  }

  // diff --html: what the colours mean, above the views.
  function addDiffLegend() {
    const legend = el('div', 'diff-legend');
    legend.id = 'diff-legend';
    legend.appendChild(el('b', null, 'Differential flame graph: '));
    legend.appendChild(document.createTextNode('widths are the samples of ' + D.source + ', colours the change of each ' +
        'call path\'s share from the baseline ' + BASE.source + ': '));
    legend.appendChild(el('span', 'more', 'larger share'));
    legend.appendChild(document.createTextNode(' '));
    legend.appendChild(el('span', 'less', 'smaller share'));
    legend.appendChild(document.createTextNode(' (deepest at '));
    const scale = el('b', null, '');
    scale.id = 'diff-scale';
    legend.appendChild(scale);
    legend.appendChild(document.createTextNode(': the largest change, at least \u00b1' + MIN_SCALE + '%). Call paths ' +
        'only in the baseline have no width here. Baseline total: '));
    const total = el('b', null, '');
    total.id = 'base-total';
    legend.appendChild(total);
    legend.appendChild(document.createTextNode(' samples.'));
    document.getElementById('tabs').after(legend);
  }

  function init() {
    document.getElementById('status').textContent = 'Source: ' + D.source +
        (BASE ? ', baseline: ' + BASE.source : '') + ' (source lines are not in this report)';
    if (BASE) addDiffLegend();
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
