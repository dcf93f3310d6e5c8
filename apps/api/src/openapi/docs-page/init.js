// Starts Swagger UI on this server's own /openapi.json: a file, not an inline script, so the page's
// Content-Security-Policy can forbid inline scripts; no validator, so the browser calls no other host.
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#api-docs',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
});
