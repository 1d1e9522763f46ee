import { directoryStats } from "../../directory/resources/resource-search";
import { type RouteDef, route } from "../route-def";
import { DirectoryStatsResponseSchema } from "./directory-stats-responses";

/** `/directory/stats`: how big the public directory is (providers and resources). */
export function directoryStatsRoutes(): RouteDef[] {
  return [
    route({
      key: "directoryStats",
      method: "GET",
      path: "/directory/stats",
      tag: "Directory",
      summary: "Counts of listed providers and resources (by scheme), with the lists' visibility rules",
      response: DirectoryStatsResponseSchema,
      handler: async (c) => c.json(await directoryStats(c.env.DB, c.var.config.network)),
    }),
  ];
}
