// Fluent catalogues (`i18n/*/*.ftl`) are imported as text at build time (Vite `?raw`).
declare module "*.ftl?raw" {
  const text: string;
  export default text;
}
