// Builds the control panel into console/dist, served by the service under /console (src/console/routes.ts).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Everything is served from this origin under a CSP without 'unsafe-inline': never inline assets.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
