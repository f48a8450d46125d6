"""The interactive explorer (``modelcheck explore``): walk a spec's states from a browser.

:mod:`.session` replays a path of choices through the spec itself (no graph
is precomputed, so it works on state spaces of any size) and describes each
state as HTML fragments; :mod:`.server` serves them and the page
(``page.html``, ``page.css``, ``page.js``) on 127.0.0.1 only.
"""
