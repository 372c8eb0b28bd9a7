import { run } from "./action/main.js";

await run();
