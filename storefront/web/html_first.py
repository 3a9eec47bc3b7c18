"""HTML first: a built page paints from the HTML the server sends, and the app starts after that paint.

React Router's build ends each page with `<script type="module">` (its route modules, then the
entry) and a `<link rel="modulepreload">` per chunk. A module script runs before the browser's
first paint, so a phone showed nothing until the app had loaded, evaluated and hydrated. This
build step (a Reflex plugin, `post_build`) rewrites every built page:

- the module script is held inert (`type="text/x-storefront-app"`, same text, so the page's CSP
  hash still names it) with the chunks it preloaded listed on it (`data-preload`), and the
  modulepreload links are dropped;
- STARTER, a small classic script, releases it once the page has had its `load` (or 3 s after
  the document is parsed, should `load` be slow: a stalled video or image) and its first
  contentful paint (as the browser reports it, so after the pixels are shown), one frame later
  (a task posted from `requestAnimationFrame` runs after that frame's paint; a callback alone
  runs before it). It marks `storefront:app-start` when it does;
- until the app is ready, a tap on a control is kept and replayed exactly once: on the same
  element once React has hydrated it (ENTRY_CLIENT signals `storefront:hydrated`), or, for a
  control of a server-written first view (`[data-first-view]`, first_view.py), on React's control
  with the same `data-replay` key once the page's own view has taken its place. A replayed choice
  (a size, a colour) is shown chosen before the next kept tap is replayed. Repeated taps on one
  waiting control count once; links stay plain links.

The pages React Router prerenders and their precompressed copies (.br, .gz) are rewritten in
place; the back office (`/admin`) and the empty shell of routes that are not prerendered (none
of the store's public pages: the product pages have templates, storefront/web/prerender.py) are left
as built.
"""

from __future__ import annotations

import gzip
import logging
import re
from pathlib import Path
from typing import Any

import brotli
from reflex_base.plugins.base import Plugin

logger = logging.getLogger(__name__)

#: The type the held module script gets: browsers do not run a script of an unknown type.
HELD_TYPE = "text/x-storefront-app"
#: The attribute a first view's control and React's control share, naming what a tap does.
REPLAY_ATTRIBUTE = "data-replay"
#: Pages left as built: the back office, and the shell of the routes React Router does not prerender
#: (it holds no content to paint, so there is nothing to wait for; 404.html is copied from it).
LEFT_AS_BUILT = ("admin.html", "__spa-fallback.html", "404.html")
#: Performance marks: when the starter releases the app, when React has hydrated the page.
APP_START_MARK = "storefront:app-start"
HYDRATED_MARK = "storefront:hydrated"
#: At most this long after the document is parsed, the app starts even if `load` has not come.
START_CAP_MS = 3000

#: A replayed choice (a size, a colour) is waited for until the page shows it chosen, at most this
#: long, before the next kept tap is replayed: Add to Cart reads the chosen size when it is clicked.
SETTLE_MS = 3000

_MODULEPRELOAD = re.compile(r'<link rel="modulepreload" href="([^"]+)"/>')
_MODULE_SCRIPT = re.compile(r'<script type="module" async="">(.*?)</script>', re.S)

STARTER = """(function(){
var w=window,d=document,sf=w.__storefront={ready:false,queue:[]};
var CONTROLS='button,[role=button],[role=radio],[role=menuitem],[role=checkbox],[role=tab],[data-replay]';
function start(){
  if(sf.started)return;sf.started=true;
  var held=d.querySelector('script[type="%(held)s"]');
  if(!held)return;
  performance.mark('%(start)s');
  (held.getAttribute('data-preload')||'').split(' ').forEach(function(href){
    if(!href)return;var l=d.createElement('link');l.rel='modulepreload';l.href=href;d.head.appendChild(l);
  });
  var s=d.createElement('script');s.type='module';s.textContent=held.textContent;d.body.appendChild(s);
}
function painted(){return performance.getEntriesByName('first-contentful-paint').length>0;}
function nextFrame(){requestAnimationFrame(function(){setTimeout(start,0);});}
function afterPaint(){
  if(painted()||!w.PerformanceObserver)return nextFrame();
  var seen=new PerformanceObserver(function(){if(painted()){seen.disconnect();nextFrame();}});
  seen.observe({type:'paint',buffered:true});
}
if(d.readyState==='complete')afterPaint();else{
  w.addEventListener('load',afterPaint,{once:true});
  d.addEventListener('DOMContentLoaded',function(){setTimeout(nextFrame,%(cap)d);},{once:true});
}
function island(el){return el.closest('[data-first-view]');}
function target(item){
  if(!sf.ready)return null;
  if(!item.key)return item.el.isConnected?item.el:null;
  var all=d.querySelectorAll('[%(attr)s="'+CSS.escape(item.key)+'"]');
  for(var i=0;i<all.length;i++){if(!island(all[i]))return all[i];}
  return null;
}
function tap(el){
  var o={bubbles:true,cancelable:true,composed:true,button:0,buttons:1,isPrimary:true,pointerType:'mouse',view:w};
  el.dispatchEvent(new PointerEvent('pointerdown',o));el.dispatchEvent(new MouseEvent('mousedown',o));
  o.buttons=0;el.dispatchEvent(new PointerEvent('pointerup',o));el.dispatchEvent(new MouseEvent('mouseup',o));
  el.click();
}
function settled(el){
  if(el.disabled||el.hasAttribute('data-disabled'))return true;
  if(el.getAttribute('role')==='radio')return el.getAttribute('aria-checked')==='true';
  if(el.hasAttribute('aria-pressed'))return el.getAttribute('aria-pressed')==='true';
  return true;
}
var watching=null,pending=null,since=0,recheck=null;
function watch(){
  if(watching)return;
  watching=new MutationObserver(flush);
  watching.observe(d.body,{childList:true,subtree:true,attributes:true,attributeFilter:['aria-checked','aria-pressed']});
}
function flush(){
  while(sf.queue.length){
    if(pending&&!settled(pending)&&Date.now()-since<%(settle)d){
      watch();
      if(!recheck)recheck=setTimeout(function(){recheck=null;flush();},%(settle)d);
      return;
    }
    pending=null;
    var item=sf.queue[0],el=target(item);
    if(!el){if(sf.ready)watch();return;}
    sf.queue.shift();item.el.removeAttribute('aria-busy');tap(el);
    if(!settled(el)){pending=el;since=Date.now();}
  }
  pending=null;
  if(watching){watching.disconnect();watching=null;}
}
sf.hydrated=function(){sf.ready=true;performance.mark('%(hydrated)s');flush();};
d.addEventListener('click',function(e){
  if(!e.isTrusted)return;
  var el=e.target.closest&&e.target.closest(CONTROLS);
  if(!el||el.closest('a[href]'))return;
  var inIsland=island(el);
  if(sf.ready&&!inIsland)return;
  var key=el.getAttribute('%(attr)s');
  if(inIsland&&!key)return;
  e.preventDefault();e.stopImmediatePropagation();
  for(var i=0;i<sf.queue.length;i++){if(sf.queue[i].el===el)return;}
  if(inIsland)el.setAttribute('aria-busy','true');
  sf.queue.push({el:el,key:inIsland?key:null});
  flush();
},true);
})();""" % {  # noqa: UP031 - with format() every brace of the script would need doubling
    "held": HELD_TYPE, "start": APP_START_MARK, "hydrated": HYDRATED_MARK, "cap": START_CAP_MS,
    "attr": REPLAY_ATTRIBUTE, "settle": SETTLE_MS,
}

#: The app's entry (Reflex's, plus the signal that the page is hydrated: `Ready` renders nothing
#: and its effect runs once React has committed the hydrated page).
ENTRY_CLIENT = """import { startTransition, createElement, Fragment, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";

function Ready() {
  useEffect(() => {
    window.__storefront?.hydrated?.();
  }, []);
  return null;
}

startTransition(() => {
  hydrateRoot(document, createElement(Fragment, null, createElement(HydratedRouter), createElement(Ready)));
});
"""


def defer_start(page: str) -> str:
    """A built page whose app starts after its first paint (the page unchanged if it has no app script)."""
    script = _MODULE_SCRIPT.search(page)
    if script is None or HELD_TYPE in page:
        return page
    preloads = " ".join(_MODULEPRELOAD.findall(page))
    held = (
        f'<script type="{HELD_TYPE}" data-preload="{preloads}">{script.group(1)}</script>'
        f"<script>{STARTER}</script>"
    )
    page = page[: script.start()] + held + page[script.end():]
    return _MODULEPRELOAD.sub("", page)


def rewrite_built_pages(static_dir: Path) -> int:
    """Rewrite every built public page under `static_dir` and its compressed copies; how many changed."""
    changed = 0
    for page in sorted(static_dir.rglob("*.html")):
        relative = page.relative_to(static_dir).as_posix()
        if relative in LEFT_AS_BUILT or relative.startswith("admin/"):
            continue
        text = page.read_text(encoding="utf-8")
        rewritten = defer_start(text)
        if rewritten == text:
            continue
        data = rewritten.encode("utf-8")
        page.write_bytes(data)
        brotli_copy, gzip_copy = page.with_name(page.name + ".br"), page.with_name(page.name + ".gz")
        if brotli_copy.exists():
            brotli_copy.write_bytes(brotli.compress(data, quality=11))
        if gzip_copy.exists():
            gzip_copy.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        changed += 1
    return changed


class HtmlFirst(Plugin):
    """Pages paint before the app starts: the entry that signals hydration, and the built pages rewritten."""

    def provides_entry_client(self) -> bool:
        return True

    def pre_compile(self, **context: Any) -> None:
        context["add_save_task"](_entry_client)

    def post_build(self, **context: Any) -> None:
        count = rewrite_built_pages(Path(context["static_dir"]))
        logger.info("HTML first: %d built pages start the app after their first paint", count)


def _entry_client() -> tuple[str, str]:
    from reflex.utils import prerequisites
    from reflex_base import constants

    return str(prerequisites.get_web_dir() / constants.Embed.ENTRY_PATH), ENTRY_CLIENT
