// ESLint flat config: TypeScript sources of the extension, the adapter and the tests.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/**", "dist/**", "wasm-pkg/**", "node_modules/**", "target/**", ".cache/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "eqeqeq": ["error", "smart"],
      "no-console": "off"
    }
  },
  {
    files: ["scripts/**/*.mjs", "test/**/*.mjs", "bench/**/*.mjs", "*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", fetch: "readonly",
        setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly",
      }
    }
  },
  {
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", exports: "writable", __dirname: "readonly", process: "readonly", global: "readonly", console: "readonly" }
    },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  }
);
