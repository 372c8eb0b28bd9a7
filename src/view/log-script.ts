/**
 * The run page's log viewer (runs in the browser): the log is split into page files
 * (`<dir>/<i>.js`, each calling medalistLog(i, text)) loaded on demand by <script> elements, so it
 * opens from disk; one page is drawn at a time and search walks the pages one per task, so a
 * 50 MB log never freezes the tab. Every line is inserted as text, never as HTML.
 */
export const LOG_SCRIPT = `(function(){
var metaEl=document.getElementById('log-meta');if(!metaEl)return;
var meta=JSON.parse(metaEl.textContent);var MAX=500;
var chunks={},waiting={};
window.medalistLog=function(i,text){chunks[i]=text.split('\\n');var w=waiting[i]||[];delete waiting[i];w.forEach(function(f){f();});};
function load(i,cb){if(chunks[i])return cb();if(waiting[i]){waiting[i].push(cb);return;}waiting[i]=[cb];
var s=document.createElement('script');s.src=meta.dir+'/'+i+'.js';
s.onerror=function(){info.textContent='log page '+(i+1)+' could not be loaded';};document.body.appendChild(s);}
var view=document.getElementById('log-view'),info=document.getElementById('log-info'),stat=document.getElementById('log-status'),res=document.getElementById('log-results');
var re=/^(\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z?) (stdout|stderr|medalist) (.*)$/;var cur=0;
function show(i,hl){load(i,function(){cur=i;view.textContent='';var lines=chunks[i];var f=document.createDocumentFragment();
for(var k=0;k<lines.length;k++){var d=document.createElement('div');var n=meta.starts[i]+k+1;d.id='L'+n;var m=re.exec(lines[k]);
if(m){var t=document.createElement('span');t.className='t';t.textContent=m[1]+' ';d.appendChild(t);d.className=m[2];d.appendChild(document.createTextNode((m[2]==='stdout'?'':m[2]+' ')+m[3]));}
else d.textContent=lines[k];if(n===hl)d.classList.add('hit');f.appendChild(d);}
view.appendChild(f);info.textContent='page '+(i+1)+' of '+meta.chunks+' · lines '+(meta.starts[i]+1)+'–'+(meta.starts[i]+lines.length);
if(hl){var el=document.getElementById('L'+hl);if(el)el.scrollIntoView({block:'center'});}});}
document.getElementById('log-prev').onclick=function(){if(cur>0)show(cur-1);};
document.getElementById('log-next').onclick=function(){if(cur<meta.chunks-1)show(cur+1);};
var token=0;
function search(q){var my=++token;res.textContent='';if(!q){stat.textContent='';return;}var ql=q.toLowerCase(),hits=0,i=0;
function next(){if(my!==token)return;if(i>=meta.chunks){stat.textContent=hits+(hits===1?' match':' matches')+(hits>=MAX?' (the first '+MAX+')':'');return;}
load(i,function(){if(my!==token)return;var lines=chunks[i];var at=i;
for(var k=0;k<lines.length&&hits<MAX;k++){if(lines[k].toLowerCase().indexOf(ql)>=0){hits++;var n=meta.starts[at]+k+1;
var li=document.createElement('li');var a=document.createElement('a');a.href='#L'+n;a.textContent='line '+n;
(function(p,n){a.onclick=function(e){e.preventDefault();show(p,n);};})(at,n);li.appendChild(a);
li.appendChild(document.createTextNode(': '+lines[k].slice(0,200)));res.appendChild(li);}}
stat.textContent='searching… page '+(i+1)+' of '+meta.chunks+', '+hits+' matches so far';i=hits>=MAX?meta.chunks:i+1;setTimeout(next,0);});}
next();}
var timer;document.getElementById('log-search').addEventListener('input',function(e){clearTimeout(timer);var q=e.target.value;timer=setTimeout(function(){search(q);},250);});
if(meta.chunks>0)show(0);})();`;
