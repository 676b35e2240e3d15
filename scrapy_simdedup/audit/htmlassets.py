"""The HTML report's inline style and script: the page loads nothing else.

The script only adds a checkbox that hides chrome and template lines; the page reads the
same without it.
"""

from __future__ import annotations

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;
color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}h4{font-weight:500}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 6px;
vertical-align:top;text-align:left}ul{margin:0;padding-left:1.2em}.how{color:#666}
.chart{width:100%;max-width:720px;height:auto}.axis{stroke:#888}.tick{font-size:11px;fill:#444}
.marker{stroke:#c00;stroke-dasharray:4 3}.sim{font-weight:700}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.side{border:1px solid #ccc;padding:6px;max-height:480px;overflow:auto;background:#fcfcfc}
.side-title{font-weight:600;word-break:break-all;border-bottom:1px solid #eee;margin-bottom:4px}
.line{margin:0 0 4px}.line.chrome,.line.template{color:#aaa}
.line.chrome::before{content:"chrome ";font-size:10px;color:#c88}
.line.template::before{content:"template ";font-size:10px;color:#88c}
mark{background:#ffe08a}.line.chrome mark,.line.template mark{background:#f3ecd8}
.missing{color:#777;font-style:italic}.measures td{font-size:12px}
body.content-only .line.chrome,body.content-only .line.template{display:none}
"""
SCRIPT = """
(function () {
  var label = document.createElement("label");
  var box = document.createElement("input");
  box.type = "checkbox";
  box.id = "content-only";
  box.addEventListener("change", function () {
    document.body.classList.toggle("content-only", box.checked);
  });
  label.appendChild(box);
  label.appendChild(document.createTextNode(" hide chrome and template lines"));
  var first = document.querySelector(".source");
  first.parentNode.insertBefore(label, first.nextSibling);
})();
"""
