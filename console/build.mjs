// The package's prepare step: builds the console with Vite (npm ci installs it as a devDependency). An
// install without devDependencies (npm ci --omit=dev) has no Vite; it says so and succeeds, and /console
// then answers 503 until a build is copied in or made with `npm run build:console`.
import { createRequire } from 'node:module';
import path from 'node:path';

const consoleDir = import.meta.dirname;
const require = createRequire(import.meta.url);

let vitePath;
try {
  vitePath = require.resolve('vite');
} catch {
  process.stderr.write(
    'lethe: Vite is not installed (devDependencies omitted), so the console was not built; ' +
      '/console answers 503 until `npm run build:console` runs where devDependencies are installed.\n',
  );
  process.exit(0);
}

const { build } = await import(vitePath);
await build({ root: consoleDir, configFile: path.join(consoleDir, 'vite.config.ts'), logLevel: 'warn' });
