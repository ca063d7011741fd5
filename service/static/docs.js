// Renders openapi.yaml with the Swagger UI shipped beside this page; every asset is served by
// the API itself, so the page works without any network beyond this server.
window.addEventListener("load", function () {
  /** Say that the document could not be rendered, and point to it as text. */
  function cannotRender(why) {
    var note = document.getElementById("spec-error");
    note.hidden = false;
    note.textContent = why + " ";
    var link = document.createElement("a");
    link.href = "/openapi.yaml";
    link.id = "spec-error-link";
    link.textContent = "Read openapi.yaml as text";
    note.append(link, ".");
  }
  if (typeof window.SwaggerUIBundle === "function") {
    window.ui = window.SwaggerUIBundle({
      url: "/openapi.yaml",
      dom_id: "#swagger-ui",
      deepLinking: true,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
      validatorUrl: null, // the default badge would call a public validator
      tryItOutEnabled: true,
      // a token typed into "Authorize" stays in this page only: kept in localStorage, it would
      // sit on the origin where the web pages keep seat tokens, readable by every page of it
      persistAuthorization: false,
    });
    // a document the renderer could not fetch or parse leaves it with errors and no operations:
    // looked for now and then until the operations show (or for 30 s)
    var looks = 0;
    var timer = setInterval(function () {
      looks += 1;
      if (document.querySelector(".opblock")) { clearInterval(timer); return; }
      var errors = window.ui.errSelectors.allErrors();
      if (errors && errors.size) {
        clearInterval(timer);
        var first = errors.first();
        cannotRender("This page could not render the API's specification (" +
          ((first && first.get("message")) || "it could not be parsed") + ").");
      } else if (looks >= 60) {
        clearInterval(timer);
      }
    }, 500);
    return;
  }
  // without the Swagger UI assets, show the specification as text rather than nothing
  var pre = document.getElementById("fallback");
  pre.hidden = false;
  fetch("/openapi.yaml")
    .then(function (r) { return r.text(); })
    .then(function (text) { pre.textContent = text; })
    .catch(function (err) { cannotRender("Could not load openapi.yaml (" + err + ")."); });
});
