// Markdown artifacts are bundled as text (wrangler.toml [[rules]] type = "Text").
declare module "*.md" {
  const content: string;
  export default content;
}

// Vite's `?raw` imports (tests read wrangler.toml to keep cron expressions in sync).
declare module "*?raw" {
  const content: string;
  export default content;
}
