// The explorer page: asks the server for the state at the end of a path, shows it, and walks on.
// The path lives in the URL (#path=0.3.1, and &compare=2,5 while two of its states are compared), so a walk can be
// shared and the browser's back button works.
// Every HTML fragment comes from the server, escaped there; error messages are set as text.
(function () {
  var start = document.body.dataset.start || '0';
  var $ = function (id) { return document.getElementById(id); };
  var err = $('error');
  var current = null;

  function showError(message) {
    err.textContent = message;
    err.hidden = false;
    document.body.dataset.ready = 'yes';
  }

  function hashState() {
    var m = /^#path=(.*?)(?:&compare=([0-9]+),([0-9]+))?$/.exec(window.location.hash);
    return m ? {path: decodeURIComponent(m[1]), compare: m[2] ? [m[2], m[3]] : null} : null;
  }

  function hashOf(path, compare) {
    return '#path=' + path + (compare ? '&compare=' + compare[0] + ',' + compare[1] : '');
  }

  function setHash(hash, push) {
    if (window.location.hash !== hash) {
      if (push) { history.pushState(null, '', hash); } else { history.replaceState(null, '', hash); }
    }
  }

  function get(url) {
    return fetch(url).then(function (r) {
      return r.json().then(function (d) {
        if (!r.ok) { throw new Error(d.error || ('the server answered ' + r.status)); }
        return d;
      });
    });
  }

  // compare: [a, b] (1-based states of the path) to show side by side after loading, or null.
  function load(path, push, compare) {
    document.body.dataset.ready = 'no';
    return get('/api/view?path=' + encodeURIComponent(path)).then(function (d) {
      err.hidden = true;
      render(d);
      if (compare) {
        $('cmp-a').value = compare[0]; $('cmp-b').value = compare[1];
        return showCompare(compare[0], compare[1], push);
      }
      $('compare').hidden = true;
      setHash(hashOf(d.path, null), push);
      document.body.dataset.ready = 'yes';
    }).catch(function (e) { showError(e.message); });
  }

  function showCompare(a, b, push) {
    document.body.dataset.ready = 'no';
    return get('/api/compare?path=' + encodeURIComponent(current.path) + '&a=' + a + '&b=' + b).then(function (d) {
      $('compare-title').textContent = 'State ' + a + ' and state ' + b + ' side by side';
      $('compare-body').innerHTML = d.html;
      $('compare').hidden = false;
      setHash(hashOf(current.path, [a, b]), push);
      document.body.dataset.ready = 'yes';
    });
  }

  function render(d) {
    current = d;
    var steps = d.path.split('.');
    document.body.dataset.path = d.path;
    var trail = $('trail');
    trail.innerHTML = '';
    d.trail.forEach(function (t, k) {
      var li = document.createElement('li');
      if (k === d.trail.length - 1) { li.className = 'current'; li.setAttribute('aria-current', 'step'); }
      var b = document.createElement('button');
      b.type = 'button';
      var n = document.createElement('span'); n.className = 'n'; n.textContent = String(t.step);
      var a = document.createElement('span'); a.innerHTML = t.label_html;  // escaped by the server; breaks only
      // between parameters
      b.appendChild(n); b.appendChild(a);
      b.addEventListener('click', function () { load(steps.slice(0, k + 1).join('.'), true); });
      if (t.messages) {  // HTML built and escaped by the server; before the button in the DOM (so the item's text
        // still ends with its action), drawn below it (CSS order)
        var m = document.createElement('div');
        m.className = 'step-msgs';
        m.innerHTML = t.messages;
        li.appendChild(m);
      }
      li.appendChild(b);
      trail.appendChild(li);
    });
    trail.scrollTop = trail.scrollHeight;  // the current state is last
    $('state-title').textContent = 'State ' + d.trail.length + (d.trail.length > 1 ? ' after ' + d.trail[d.trail.length - 1].action : ' (initial state)');
    var inv = $('invariants');
    inv.innerHTML = '';
    d.invariants.forEach(function (i) {
      var s = document.createElement('span');
      if (i.finding) {  // violated, but a documented finding about the spec itself: said so, not in red
        s.className = 'inv finding';
        s.textContent = '\u2139 ' + i.name + ' violated: known finding';
        s.title = i.finding;
      } else {
        s.className = 'inv' + (i.holds ? '' : ' broken');
        s.textContent = (i.holds ? '\u2713 ' : '\u2717 ') + i.name + (i.holds ? ' holds' : ' violated');
        s.title = i.description;
      }
      inv.appendChild(s);
      if (i.finding) {
        var n = document.createElement('p');
        n.className = 'inv-why finding';
        n.textContent = i.name + ' (known finding): ' + i.finding + (i.explanation ? ' Here: ' + i.explanation + '.' : '');
        inv.appendChild(n);
      } else if (!i.holds && i.explanation) {
        var p = document.createElement('p');
        p.className = 'inv-why';
        p.textContent = i.name + ': ' + i.explanation;
        inv.appendChild(p);
      }
    });
    $('lanes').innerHTML = d.lanes ? '<h4>Lanes</h4>' + d.lanes : '';
    $('messages').innerHTML = d.messages ? '<h4>Messages in the last step</h4>' + d.messages : '';
    showSequence(d);
    $('variables').innerHTML = d.variables;
    var list = $('actions');
    list.innerHTML = '';
    if (d.deadlock) {
      var none = document.createElement('li');
      none.className = 'deadlock';
      none.textContent = 'No action is enabled: this state has no successor.';
      list.appendChild(none);
    }
    d.successors.forEach(function (s) {
      var li = document.createElement('li');
      var known = d.findings || {};
      var alarms = s.breaks.filter(function (n) { return !(n in known); });
      var noted = s.breaks.filter(function (n) { return n in known; });
      if (alarms.length) { li.className = 'breaks'; }
      var b = document.createElement('button');
      b.type = 'button';
      b.dataset.index = String(s.index);
      b.dataset.label = s.action;
      b.innerHTML = '<span class="n">' + s.index + '</span><span class="label">' + s.label_html + '</span>' +
        '<span class="bad"></span><span class="noted"></span><span class="mends"></span>' + s.changes;
      if (alarms.length) { b.querySelector('.bad').textContent = 'breaks ' + alarms.join(', '); }
      if (noted.length) { b.querySelector('.noted').textContent = 'breaks ' + noted.join(', ') + ' (known finding)'; }
      if (s.mends.length) { b.querySelector('.mends').textContent = 'mends ' + s.mends.join(', '); }
      b.addEventListener('click', function () { load(d.path + '.' + s.index, true); });
      // Pointing at an action (or tabbing to it) outlines the lane cells it would change, before it is taken.
      b.addEventListener('mouseenter', function () { preview(s.preview); });
      b.addEventListener('focus', function () { preview(s.preview); });
      b.addEventListener('mouseleave', function () { preview(null); });
      b.addEventListener('blur', function () { preview(null); });
      li.appendChild(b);
      list.appendChild(li);
    });
    ['cmp-a', 'cmp-b'].forEach(function (id, which) {
      var sel = $(id);
      sel.innerHTML = '';
      d.trail.forEach(function (t) {
        var o = document.createElement('option');
        o.value = String(t.step); o.textContent = String(t.step);
        sel.appendChild(o);
      });
      sel.value = String(Math.max(1, d.trail.length - 1 + which));
    });
    $('back').disabled = steps.length < 2;
    $('to-start').hidden = start === '0' || d.path === start;
  }

  // The path as the trace page's sequence diagram (SVG built and escaped by the server), scrolled to its last
  // row, the current state; a click on a row goes back to that step.
  function showSequence(d) {
    var box = $('sequence');
    if (!d.sequence) { box.innerHTML = ''; return; }
    box.innerHTML = '<h4>The path as messages</h4><div class="seqbox pathseq"><div class="heads" hidden></div>' +
      d.sequence + '</div>';
    var inner = box.querySelector('.seqbox');
    // Scrolled down to the current state, the actors' boxes would be out of view: a copy of them (the same
    // drawing, cut to their band) stays at the top of the box while the originals are scrolled away.
    var svg = inner.querySelector('svg.seq'), actor = svg && svg.querySelector('rect.actor');
    if (actor) {
      var top = Number(actor.getAttribute('y')), h = Number(actor.getAttribute('height'));
      var heads = svg.cloneNode(true);
      heads.setAttribute('viewBox', '0 ' + (top - 4) + ' ' + svg.getAttribute('width') + ' ' + (h + 8));
      heads.setAttribute('height', String(h + 8));
      heads.setAttribute('aria-hidden', 'true');
      heads.setAttribute('class', 'seqheads');  // not the diagram: only its actors' band
      heads.querySelectorAll('[id]').forEach(function (e) { e.removeAttribute('id'); });
      heads.querySelectorAll('g').forEach(function (g) { g.remove(); });  // the rows and the legend: not shown
      var strip = inner.querySelector('.heads');
      strip.appendChild(heads);
      var scale = function () { return svg.getBoundingClientRect().width / Number(svg.getAttribute('width')); };
      var sticky = function () { strip.hidden = inner.scrollTop < (top + h) * scale(); };
      inner.addEventListener('scroll', sticky);
      inner.scrollTop = inner.scrollHeight;
      sticky();
    } else {
      inner.scrollTop = inner.scrollHeight;
    }
    var steps = d.path.split('.');
    inner.querySelectorAll('g.row[data-step]').forEach(function (g) {
      var k = Number(g.dataset.step);
      if (k === d.trail.length) { g.classList.add('sel'); }
      g.addEventListener('click', function () { if (k !== d.trail.length) { load(steps.slice(0, k).join('.'), true); } });
    });
  }

  // cells: [[lane, field, offset or null]...] from the server, or null to clear the outline.
  function preview(cells) {
    document.querySelectorAll('#lanes .preview').forEach(function (e) { e.classList.remove('preview'); });
    (cells || []).forEach(function (c) {
      var td = document.querySelector('#lanes td[data-lane="' + CSS.escape(c[0]) + '"][data-field="' + CSS.escape(c[1]) + '"]');
      if (!td) { return; }
      if (c[2] === null) { td.classList.add('preview'); return; }
      var cell = td.querySelectorAll('.log > .cell')[c[2]];
      if (cell) { cell.classList.add('preview'); }
    });
  }

  $('back').addEventListener('click', function () {
    if (current) { var s = current.path.split('.'); if (s.length > 1) { load(s.slice(0, -1).join('.'), true); } }
  });
  $('restart').addEventListener('click', function () { load('0', true); });
  $('to-start').addEventListener('click', function () { load(start, true); });
  $('cmp-go').addEventListener('click', function () {
    if (!current) { return; }
    showCompare($('cmp-a').value, $('cmp-b').value, true).then(function () {
      $('compare').scrollIntoView({block: 'nearest'});
    }).catch(function (e) { showError(e.message); });
  });
  $('only-changes').addEventListener('change', function () {
    document.body.classList.toggle('only-changes', $('only-changes').checked);
  });
  function fromUrl() {
    var h = hashState();
    load(h === null ? start : h.path, false, h === null ? null : h.compare);
  }
  window.addEventListener('popstate', fromUrl);
  fromUrl();
})();
