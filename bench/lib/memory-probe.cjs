// Preloaded into Dapper's adapter by the benchmark (`node --expose-gc -r <this>`): on
// SIGUSR2 it collects garbage and writes process.memoryUsage() as JSON to the file named
// by DAPPER_BENCH_MEMORY_FILE, so the heap can be read after a given number of sessions
// without changing the adapter itself.
"use strict";
const fs = require("fs");

const file = process.env.DAPPER_BENCH_MEMORY_FILE;
if (file) {
  process.on("SIGUSR2", () => {
    if (typeof global.gc === "function") global.gc();
    // Written aside and renamed, so the benchmark never reads half a file.
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    fs.renameSync(`${file}.tmp`, file);
  });
}
