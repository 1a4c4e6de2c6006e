import { Controller, Get, Header } from '@nestjs/common';
import { buildOpenApiDocument } from './openapi.js';

const DOCUMENT = buildOpenApiDocument();

/** `/openapi.json` and a rendered reference at `/docs` (Swagger UI, served from this process). */
@Controller()
export class DocsController {
  @Get('openapi.json')
  openapi(): unknown {
    return DOCUMENT;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;
  }

  @Get('docs/init.js')
  @Header('content-type', 'application/javascript; charset=utf-8')
  init(): string {
    return `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true });`;
  }
}
