// Stands in for the Vue app: the same hook the real UI installs, and a self-driving check.
  var received = { text: "", batches: 0, others: [] };
  window.__cashcode = {
    dispatch: function (batch) {
      received.batches += 1;
      for (var i = 0; i < batch.length; i++) {
        var ev = batch[i];
        if (ev.type === "delta") received.text += ev.text;
        else received.others.push(ev.type);
      }
      document.getElementById("stream").textContent = received.text;
    },
  };
  function until(cond) {
    return new Promise(function (resolve) {
      (function poll() { if (cond()) resolve(); else setTimeout(poll, 10); })();
    });
  }
  window.addEventListener("pywebviewready", async function () {
    var api = window.pywebview.api;
    var echo = await api.invoke("echo", { word: "héllo ✓", n: [1, 2] });
    var missing = await api.invoke("does.not.exist");
    var started = await api.invoke("test.stream", {});
    var expected = started.data.text;
    await until(function () { return received.text.length >= expected.length && received.others.length >= 1; });
    await api.invoke("test.report", {
      publicApi: Object.keys(api).sort(),
      echo: echo, missing: missing,
      streamComplete: received.text === expected,
      batches: received.batches, others: received.others,
      domText: document.getElementById("stream").textContent === expected,
    });
  });
