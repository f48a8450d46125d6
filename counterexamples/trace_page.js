// Selection for a trace page: one step at a time, in every view, kept in the URL (#step=N).
// Without this script every step is shown, one after the other.
(function () {
  document.documentElement.classList.add('js');
  var list = document.getElementById('steplist');
  var options = Array.prototype.slice.call(list.querySelectorAll('li[role="option"]'));
  var details = document.querySelectorAll('.stepdetail');
  var count = options.length;
  var current = 0;

  function frameGraphNode(i) {
    document.querySelectorAll('.graph rect.selbox').forEach(function (r) { r.remove(); });
    document.querySelectorAll('.graph g.node').forEach(function (g) {
      var t = g.querySelector('title');
      var on = t !== null && t.textContent === 's' + (i + 1);
      g.classList.toggle('sel', on);
      if (on && g.getBBox) {  // a Graphviz table node has no outline of its own: draw one
        var bb = g.getBBox(), r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
        r.setAttribute('class', 'selbox');
        r.setAttribute('x', bb.x - 6); r.setAttribute('y', bb.y - 6);
        r.setAttribute('width', bb.width + 12); r.setAttribute('height', bb.height + 12);
        r.setAttribute('rx', 6);
        g.insertBefore(r, g.firstChild);
      }
    });
  }

  function keepInView(el, box) {  // scroll a box (not the page) so that el is visible
    if (!el || !box) { return; }
    var r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    if (r.right > b.right) { box.scrollLeft += r.right - b.right; }
    else if (r.left < b.left + 40) { box.scrollLeft -= b.left + 40 - r.left; }
  }

  function select(i, how) {
    if (!(i >= 0 && i < count)) { return; }
    current = i;
    options.forEach(function (li, k) {
      li.setAttribute('aria-selected', k === i ? 'true' : 'false');
      li.tabIndex = -1;
    });
    list.setAttribute('aria-activedescendant', options[i].id);
    details.forEach(function (d) { d.classList.toggle('current', Number(d.dataset.i) === i); });
    document.querySelectorAll('table.lanes.rows tr[data-row]').forEach(function (tr) {
      tr.classList.toggle('sel', Number(tr.dataset.row) === i);
    });
    document.querySelectorAll('table.lanes.cols [data-col]').forEach(function (c) {
      c.classList.toggle('sel', Number(c.dataset.col) === i);
    });
    keepInView(document.querySelector('table.lanes.cols th[data-col="' + i + '"]'), document.getElementById('lanes-cols'));
    document.querySelectorAll('.seqbox g.row').forEach(function (g) {
      g.classList.toggle('sel', Number(g.dataset.step) === i + 1);
    });
    frameGraphNode(i);
    if (how !== 'load' && history.replaceState) { history.replaceState(null, '', '#step=' + (i + 1)); }
  }

  function fromHash() {
    var m = /^#step[=-](\d+)$/.exec(window.location.hash);  // #step=4 links, and the static #step-4 anchors
    return m ? Number(m[1]) - 1 : -1;
  }

  options.forEach(function (li, k) {
    var a = li.querySelector('a');
    if (a) { a.tabIndex = -1; }  // one tab stop: the list itself (the links are for pages without script)
    li.addEventListener('click', function (e) { e.preventDefault(); select(k); list.focus(); });
  });
  list.querySelectorAll('li.loopback').forEach(function (li) {  // the loop's closing row: back to its first step
    li.addEventListener('click', function (e) { e.preventDefault(); select(Number(li.dataset.goto)); list.focus(); });
  });
  list.addEventListener('keydown', function (e) {  // arrow keys act only while the steps list has focus
    var to = e.key === 'ArrowDown' || e.key === 'ArrowRight' ? current + 1 :
             e.key === 'ArrowUp' || e.key === 'ArrowLeft' ? current - 1 :
             e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : null;
    if (to !== null) {
      e.preventDefault();
      select(Math.max(0, Math.min(count - 1, to)));
      options[current].scrollIntoView({block: 'nearest'});
    }
  });
  document.querySelectorAll('table.lanes th[data-col]').forEach(function (th) {
    th.addEventListener('click', function () { select(Number(th.dataset.col)); });
  });
  document.querySelectorAll('.seqbox g.row').forEach(function (g) {
    g.addEventListener('click', function () { select(Number(g.dataset.step) - 1); });
  });
  document.querySelectorAll('.graph g.node').forEach(function (g) {
    var t = g.querySelector('title');
    var m = t ? /^s(\d+)$/.exec(t.textContent) : null;
    if (m) { g.addEventListener('click', function () { select(Number(m[1]) - 1); }); }
  });
  window.addEventListener('hashchange', function () { var i = fromHash(); if (i >= 0) { select(i); } });

  var layout = document.getElementById('layout');
  var rows = document.getElementById('lanes-rows'), cols = document.getElementById('lanes-cols');
  if (layout && rows && cols) {
    layout.addEventListener('click', function () {
      var toCols = cols.hidden;
      cols.hidden = !toCols; rows.hidden = toCols;
      layout.setAttribute('aria-pressed', toCols ? 'true' : 'false');
      layout.textContent = toCols ? 'Show steps as rows' : 'Show steps as columns';
      select(current);
    });
  }
  var only = document.getElementById('only-changes');
  if (only) {
    only.addEventListener('change', function () { document.body.classList.toggle('only-changes', only.checked); });
  }

  var wanted = fromHash();
  // Without a #step in the URL the page opens at the last step: where the invariant breaks (or the lasso ends).
  select(wanted >= 0 && wanted < count ? wanted : count - 1, 'load');
  document.body.dataset.ready = 'yes';
})();
