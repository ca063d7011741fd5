// Renders openapi.yaml with the Swagger UI shipped beside this page; every asset is served by
// the API itself, so the page works without any network beyond this server.
window.addEventListener("load", function () {
  if (typeof window.SwaggerUIBundle === "function") {
    window.ui = window.SwaggerUIBundle({
      url: "openapi.yaml",
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
    return;
  }
  // without the Swagger UI assets, show the specification as text rather than nothing
  var pre = document.getElementById("fallback");
  pre.hidden = false;
  fetch("openapi.yaml")
    .then(function (r) { return r.text(); })
    .then(function (text) { pre.textContent = text; })
    .catch(function (err) { pre.textContent = "Could not load openapi.yaml: " + err; });
});
