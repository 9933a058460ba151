"""The site's HTML skeletons (``string.Template``), its one small stylesheet and its search script.

Every value put in a template is already escaped by :mod:`bot.site.build`; nothing here is filled in
from the KB directly.
"""

from __future__ import annotations

from string import Template

CSS = """
:root{--fg:#1d1c1d;--muted:#616061;--bg:#fff;--line:#e3e3e3;--code:#f4f4f4;--accent:#1264a3;--bad:#b3261e;--ok:#007a5a}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--muted:#a9a9a9;--bg:#1a1d21;--line:#35373b;--code:#26292e;
--accent:#4ea3f1;--bad:#f28b82;--ok:#5ccf9c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.6 -apple-system,"Segoe UI",Roboto,"Noto Sans",
"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif}
main,header.top,footer{max-width:52rem;margin:0 auto;padding:0 1.25rem}
header.top{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding-top:1rem;flex-wrap:wrap}
header.top .brand{font-weight:700;color:var(--fg);text-decoration:none}
nav.langs a,nav.langs span{margin-left:.75rem}
nav.langs span{font-weight:600}
a{color:var(--accent)}
h1{font-size:1.6rem;line-height:1.3;margin:1.2rem 0 .6rem}
h2{font-size:1.1rem;margin:1.8rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:.88em}
code{background:var(--code);padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:.8rem 1rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;
word-break:break-word}
pre code{padding:0;background:none}
.label{color:var(--muted);font-size:.85rem;margin:0}
ul.dead li::marker{content:"✗  ";color:var(--bad)}
ol.fixes li{margin-bottom:.8rem}
.basis{display:block;color:var(--muted);font-size:.88rem}
.basis b{color:var(--ok)}
.cond{color:var(--muted)}
.facts{color:var(--muted);font-size:.9rem}
footer{color:var(--muted);font-size:.85rem;margin-top:2.5rem;padding-bottom:2rem;border-top:1px solid var(--line);
padding-top:.8rem}
input[type=search]{width:100%;font:inherit;padding:.55rem .8rem;border:1px solid var(--line);border-radius:6px;
background:var(--bg);color:var(--fg)}
ul.entries{padding-left:1.1rem}
ul.entries li{margin:.15rem 0}
.domains a{margin-right:.6rem;white-space:nowrap}
.count{color:var(--muted);font-weight:400;font-size:.9rem}
"""

# The index's search: titles in English, Simplified and Traditional Chinese (so a Traditional query finds
# what a Simplified one does), ids and keywords; every word of the query must be found. No framework.
SEARCH_JS = """
(function(){
var box=document.getElementById('q'),out=document.getElementById('results'),all=document.getElementById('all');
var lang=document.documentElement.getAttribute('data-title'),none=out.getAttribute('data-none'),items=null;
function load(done){if(items){done();return}
fetch('../search-index.json').then(function(r){return r.json()}).then(function(d){items=d.entries;
items.forEach(function(e){e.hay=[e.id,e.en,e.zh,e.hant,(e.keywords||[]).join(' ')].join(' ').toLowerCase()});done()})}
function show(){var q=box.value.trim().toLowerCase();
if(!q){out.innerHTML='';all.hidden=false;return}
load(function(){var words=q.split(/\\s+/),hits=[];
for(var i=0;i<items.length&&hits.length<60;i++){var e=items[i],ok=true;
for(var j=0;j<words.length;j++){if(e.hay.indexOf(words[j])<0){ok=false;break}}if(ok)hits.push(e)}
all.hidden=true;out.textContent='';
if(!hits.length){var p=document.createElement('p');p.textContent=none;out.appendChild(p);return}
var ul=document.createElement('ul');ul.className='entries';
hits.forEach(function(e){var li=document.createElement('li'),a=document.createElement('a');
a.href=e.id+'.html';a.textContent=e[lang]||e.en;li.appendChild(a);
var s=document.createElement('span');s.className='count';s.textContent='  '+e.domain;li.appendChild(s);
ul.appendChild(li)});out.appendChild(ul)})}
var m=location.search.match(/[?&]q=([^&]*)/);if(m)box.value=decodeURIComponent(m[1].replace(/[+]/g,' '));
box.addEventListener('input',show);if(box.value)show();
})();
"""

PAGE = Template("""<!doctype html>
<html lang="$html_lang" data-title="$title_key">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<meta name="description" content="$description">
<meta property="og:site_name" content="errkb">
<meta property="og:type" content="$og_type">
<meta property="og:title" content="$og_title">
<meta property="og:description" content="$description">
<meta property="og:url" content="$url">
<meta property="og:locale" content="$og_locale">
<meta name="twitter:card" content="summary">
<link rel="canonical" href="$url">
$alternates
<style>$css</style>
</head>
<body>
<header class="top"><a class="brand" href="$home">errkb</a><nav class="langs" aria-label="$language_label">$langs</nav>
</header>
<main>
$body
</main>
<footer>$footer</footer>
$script
</body>
</html>
""")

ENTRY = Template("""<h1>$title</h1>
<p class="label">$as_printed_label</p>
<pre><code>$signature</code></pre>
<h2>$cause_label</h2>
<p>$cause</p>
$dead_ends
$fixes
$facts
$related
""")

INDEX = Template("""<h1>$title</h1>
<p>$lead</p>
<p><label for="q" class="label">$search_label</label>
<input type="search" id="q" placeholder="$placeholder" autocomplete="off"></p>
<div id="results" data-none="$none"></div>
<div id="all">
<p class="domains">$domain_links</p>
$groups
</div>
""")
