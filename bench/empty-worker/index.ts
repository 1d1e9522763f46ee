/** The smallest Worker: the baseline `npm run bench:startup` subtracts (Miniflare's own services start either way). */
export default {
  fetch(): Response {
    return new Response("ok");
  },
};
