/**
 * The index's filters and sorting (runs in the browser, from file:// too: no request, no module).
 * It only hides rows and reorders them inside their own group's table; without it the page is the
 * grouped tables as written. Rows carry data-group, data-change (a number or ""), data-failed and
 * data-competition; every value is read with getAttribute, never as HTML.
 */
export const INDEX_SCRIPT = `(function(){
var form=document.getElementById('controls');if(!form)return;
form.hidden=false;
var rows=Array.prototype.slice.call(document.querySelectorAll('table.competitions tbody tr'));
var groups=Array.prototype.slice.call(document.querySelectorAll('section.group'));
function val(id){var e=document.getElementById(id);return e?e.value:'';}
function change(tr){var v=tr.getAttribute('data-change');return v===''?null:Number(v);}
function apply(){
var on={};Array.prototype.forEach.call(form.querySelectorAll('input[name=group]'),function(b){on[b.value]=b.checked;});
var runs=val('filter-runs'),ch=val('filter-change'),name=val('filter-name').trim().toLowerCase(),shown=0;
rows.forEach(function(tr){
var g=tr.getAttribute('data-group'),c=change(tr),f=tr.getAttribute('data-failed')==='1';
var ok=(on[g]!==false)&&(runs==='all'||(runs==='failed')===f)
&&(ch==='all'||(ch==='some'&&c!==null)||(c!==null&&(ch==='up'?c>0.0000005:ch==='down'?c<-0.0000005:ch==='same'&&Math.abs(c)<=0.0000005)))
&&(name===''||tr.getAttribute('data-competition').toLowerCase().indexOf(name)>=0);
tr.hidden=!ok;if(ok)shown++;});
groups.forEach(function(s){var g=s.getAttribute('data-group');s.hidden=on[g]===false;
var body=s.querySelector('tbody'),none=s.querySelector('p.none');if(!body||!none)return;
var any=Array.prototype.some.call(body.rows,function(tr){return !tr.hidden;});none.hidden=any;
var box=s.querySelector('.tablebox');if(box)box.hidden=!any;});
document.getElementById('shown').textContent=shown+' of '+rows.length+' competitions shown';
}
function sort(){
var how=val('sort');
Array.prototype.forEach.call(document.querySelectorAll('table.competitions tbody'),function(body){
var rs=Array.prototype.slice.call(body.rows);
rs.sort(function(a,b){
var na=a.getAttribute('data-competition'),nb=b.getAttribute('data-competition');
if(how!=='name'){var ca=change(a),cb=change(b);
if(ca!==cb){if(ca===null)return 1;if(cb===null)return -1;return how==='change-asc'?ca-cb:cb-ca;}}
return na<nb?-1:na>nb?1:0;});
rs.forEach(function(r){body.appendChild(r);});});
}
form.addEventListener('input',function(e){if(e.target&&e.target.id==='sort')sort();apply();});
form.addEventListener('change',function(e){if(e.target&&e.target.id==='sort')sort();apply();});
apply();
})();`;
