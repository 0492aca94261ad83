// The operator's page: replace the live part with each rendering the server sends. Nothing
// else happens here; the page is read-only and works (without updates) with scripts off.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var conn = document.getElementById("conn");
  if (!live || !window.EventSource) {
    if (conn) conn.textContent = "static";
    return;
  }
  var es = new EventSource("events");
  es.addEventListener("live", function (e) {
    live.innerHTML = e.data;
    if (conn) conn.textContent = "live";
  });
  es.onerror = function () {
    if (conn) conn.textContent = "reconnecting";
  };
})();
