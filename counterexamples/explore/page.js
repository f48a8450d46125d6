// The explorer page: asks the server for the state at the end of a path, shows it, and walks on.
// The path lives in the URL (#path=0.3.1), so a walk can be shared and the browser's back button works.
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

  function hashPath() {
    var m = /^#path=(.*)$/.exec(window.location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  function get(url) {
    return fetch(url).then(function (r) {
      return r.json().then(function (d) {
        if (!r.ok) { throw new Error(d.error || ('the server answered ' + r.status)); }
        return d;
      });
    });
  }

  function load(path, push) {
    document.body.dataset.ready = 'no';
    return get('/api/view?path=' + encodeURIComponent(path)).then(function (d) {
      err.hidden = true;
      render(d);
      var hash = '#path=' + d.path;
      if (window.location.hash !== hash) {
        if (push) { history.pushState(null, '', hash); } else { history.replaceState(null, '', hash); }
      }
      document.body.dataset.ready = 'yes';
    }).catch(function (e) { showError(e.message); });
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
      var a = document.createElement('span'); a.textContent = t.action;
      b.appendChild(n); b.appendChild(a);
      b.addEventListener('click', function () { load(steps.slice(0, k + 1).join('.'), true); });
      li.appendChild(b);
      trail.appendChild(li);
    });
    $('state-title').textContent = 'State ' + d.trail.length + (d.trail.length > 1 ? ' after ' + d.trail[d.trail.length - 1].action : ' (initial state)');
    var inv = $('invariants');
    inv.innerHTML = '';
    d.invariants.forEach(function (i) {
      var s = document.createElement('span');
      s.className = 'inv' + (i.holds ? '' : ' broken');
      s.textContent = (i.holds ? '\u2713 ' : '\u2717 ') + i.name + (i.holds ? ' holds' : ' violated');
      s.title = i.description;
      inv.appendChild(s);
      if (!i.holds && i.explanation) {
        var p = document.createElement('p');
        p.className = 'inv-why';
        p.textContent = i.name + ': ' + i.explanation;
        inv.appendChild(p);
      }
    });
    $('lanes').innerHTML = d.lanes ? '<h4>Lanes</h4>' + d.lanes : '';
    $('messages').innerHTML = d.messages ? '<h4>Messages in the last step</h4>' + d.messages : '';
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
      if (s.breaks.length) { li.className = 'breaks'; }
      var b = document.createElement('button');
      b.type = 'button';
      b.dataset.index = String(s.index);
      b.dataset.label = s.action;
      b.innerHTML = '<span class="n">' + s.index + '</span><span class="label">' + s.label_html + '</span>' +
        '<span class="bad"></span><span class="mends"></span>' + s.changes;
      if (s.breaks.length) { b.querySelector('.bad').textContent = 'breaks ' + s.breaks.join(', '); }
      if (s.mends.length) { b.querySelector('.mends').textContent = 'mends ' + s.mends.join(', '); }
      b.addEventListener('click', function () { load(d.path + '.' + s.index, true); });
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

  $('back').addEventListener('click', function () {
    if (current) { var s = current.path.split('.'); if (s.length > 1) { load(s.slice(0, -1).join('.'), true); } }
  });
  $('restart').addEventListener('click', function () { load('0', true); });
  $('to-start').addEventListener('click', function () { load(start, true); });
  $('cmp-go').addEventListener('click', function () {
    if (!current) { return; }
    var a = $('cmp-a').value, b = $('cmp-b').value;
    get('/api/compare?path=' + encodeURIComponent(current.path) + '&a=' + a + '&b=' + b).then(function (d) {
      $('compare-title').textContent = 'State ' + a + ' and state ' + b + ' side by side';
      $('compare-body').innerHTML = d.html;
      $('compare').hidden = false;
      $('compare').scrollIntoView({block: 'nearest'});
    }).catch(function (e) { showError(e.message); });
  });
  $('only-changes').addEventListener('change', function () {
    document.body.classList.toggle('only-changes', $('only-changes').checked);
  });
  window.addEventListener('popstate', function () { var p = hashPath(); load(p === null ? start : p, false); });

  var first = hashPath();
  load(first === null ? start : first, false);
})();
