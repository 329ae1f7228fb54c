// Shell-only latency page: appends pushed delta text to a <pre> with no framework, and stamps
// each batch on arrival (dispatch) and in the next animation frame (painted by then).
window.__recv = [];
var out = document.getElementById("out");
window.__cashcode = {
  dispatch: function (batch) {
    var now = performance.timeOrigin + performance.now();
    var text = "";
    for (var i = 0; i < batch.length; i++) if (batch[i].type === "delta") text += batch[i].text;
    if (!text) return;
    out.textContent += text;
    var count = (out.textContent.match(/t\d{4}/g) || []).length;
    var rec = [count, now, 0];
    window.__recv.push(rec);
    requestAnimationFrame(function () { rec[2] = performance.timeOrigin + performance.now(); });
  },
};
