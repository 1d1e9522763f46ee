import * as v from "valibot";

/**
 * An absolute http(s) URL of at most `maxLength` characters, with no credentials (they would be published in the
 * directory) and no fragment (never sent to the server, so it cannot tell two URLs apart).
 */
export function httpUrlSchema(maxLength: number) {
  return v.pipe(
    v.string("must be an http(s) URL"),
    v.maxLength(maxLength, `must be at most ${maxLength} characters`),
    v.check((text) => {
      try {
        const url = new URL(text);
        return (
          (url.protocol === "https:" || url.protocol === "http:") &&
          url.username === "" &&
          url.password === "" &&
          url.hash === ""
        );
      } catch {
        return false;
      }
    }, "must be an absolute http(s) URL without credentials or fragment"),
  );
}
