// Lint: ESLint's and typescript-eslint's recommended rules (syntax-level, fast); type errors are tsc's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'packages/client/dist/**',
      'data/**',
      '.cache/**',
      'coverage/**',
      'test-results/**',
      'web/dist/**',
      'dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The dashboard (web/): plain JavaScript modules that run in the browser, served as they are (no build step).
    files: ['web/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        console: 'readonly',
        URLSearchParams: 'readonly',
        HTMLElement: 'readonly',
        Node: 'readonly',
        FormData: 'readonly',
        File: 'readonly',
        HashChangeEvent: 'readonly',
        Intl: 'readonly',
        requestAnimationFrame: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  {
    // The browser SDK and join page (web-sdk/, served at /sdk/): modules for pages; clarion-sw.js, a classic service worker script.
    files: ['web-sdk/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        Notification: 'readonly',
        Intl: 'readonly',
        atob: 'readonly',
        URL: 'readonly',
      },
    },
  },
  {
    files: ['web-sdk/clarion-sw.js'],
    languageOptions: { sourceType: 'script', globals: { self: 'readonly' } },
  },
  {
    // Tests read untyped JSON responses.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
