// A deliberately weak real model behind an OpenAI-compatible endpoint, for measuring what the
// plan validator lets through. node-llama-cpp has no server mode, so this serves
// POST /v1/chat/completions itself, constraining the answer with a grammar made from the
// request's JSON Schema (response_format), as a hosted model's structured output would be.
//
//   WEAK_MODEL_GGUF=.../SmolLM2-135M-Instruct.Q4_1.gguf NODE_LLAMA_CPP=.../node-llama-cpp \
//     node bench/weak_model_server.mjs   # prints "listening http://127.0.0.1:PORT/v1"
//
// Loopback only; one request at a time (a pass sends one). WEAK_MODEL_DUMP=FILE appends every
// prompt and raw answer to FILE, one JSON object a line.
import { appendFileSync } from "node:fs";
import http from "node:http";

const lib = await import(process.env.NODE_LLAMA_CPP ?? "node-llama-cpp");
const { getLlama, LlamaChatSession } = lib;
// one thread: on a shared 2-core machine more threads spin against each other and stall
const threads = Number(process.env.WEAK_MODEL_THREADS ?? 1);
const llama = await getLlama({ gpu: false, maxThreads: threads });
const model = await llama.loadModel({ modelPath: process.env.WEAK_MODEL_GGUF });
const context = await model.createContext({
  contextSize: Number(process.env.WEAK_MODEL_CTX ?? 8192),
  threads,
});
const grammars = new Map();

// The JSON-schema grammar takes a subset of the keywords: drop the annotations it refuses, but
// never a property of that name (an edit's `title` is one). Every string is held to
// WEAK_MODEL_STRING_CAP characters and every list to WEAK_MODEL_MAX_ITEMS (or the schema's own
// bounds, if lower): a model this weak otherwise writes until the token cap, and an answer that
// never parses tests the answer reader, never the validator.
const STRING_CAP = Number(process.env.WEAK_MODEL_STRING_CAP ?? 200);
const MAX_ITEMS = Number(process.env.WEAK_MODEL_MAX_ITEMS ?? 3);
function plain(node, names = false) {
  if (Array.isArray(node)) return node.map((n) => plain(n));
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (!names && ["$schema", "title", "description"].includes(k)) continue;
    out[k] = plain(v, !names && k === "properties");
  }
  if (!names && out.type === "string" && !out.enum && STRING_CAP > 0)
    out.maxLength = Math.min(out.maxLength ?? STRING_CAP, STRING_CAP);
  if (!names && out.type === "array" && MAX_ITEMS > 0)
    out.maxItems = Math.min(out.maxItems ?? MAX_ITEMS, MAX_ITEMS);
  return out;
}

async function grammarFor(schema) {
  const key = JSON.stringify(schema);
  if (!grammars.has(key)) grammars.set(key, await llama.createGrammarForJsonSchema(plain(schema)));
  return grammars.get(key);
}

let busy = Promise.resolve();

async function answer(body, signal) {
  const messages = body.messages ?? [];
  const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
  const user = messages.filter((m) => m.role !== "system").map((m) => m.content).join("\n\n");
  const schema = body.response_format?.json_schema?.schema;
  const sequence = context.getSequence();
  try {
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
    const options = { maxTokens: Number(process.env.WEAK_MODEL_MAX_TOKENS ?? 600), temperature: 0, signal };
    if (schema) options.grammar = await grammarFor(schema);
    const text = await session.prompt(user, options);
    // WEAK_MODEL_DUMP: append each prompt and raw answer as a JSON line, for regression fixtures
    if (process.env.WEAK_MODEL_DUMP)
      appendFileSync(process.env.WEAK_MODEL_DUMP, JSON.stringify({ user, answer: text }) + "\n");
    return {
      content: text,
      prompt_tokens: sequence.tokenMeter?.usedInputTokens ?? 0,
      completion_tokens: sequence.tokenMeter?.usedOutputTokens ?? 0,
    };
  } finally {
    sequence.dispose();
  }
}

const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (chunk) => (raw += chunk));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const body = JSON.parse(raw || "{}");
    // a client that gave up (its timeout) must not keep the model busy: the answers queued
    // behind it would time out in turn
    const gone = new AbortController();
    res.on("close", () => { if (!res.writableEnded) gone.abort(); });
    busy = busy.then(async () => {
      if (gone.signal.aborted) return;
      try {
        const out = await answer(body, gone.signal);
        if (gone.signal.aborted) return;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          id: "chatcmpl-weak", object: "chat.completion", created: Math.floor(Date.now() / 1000),
          model: body.model ?? "smollm2-135m",
          choices: [{ index: 0, finish_reason: "stop",
                      message: { role: "assistant", content: out.content } }],
          usage: { prompt_tokens: out.prompt_tokens, completion_tokens: out.completion_tokens,
                   total_tokens: out.prompt_tokens + out.completion_tokens },
        }));
      } catch (err) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err?.message ?? err) } }));
      }
    });
  });
});

server.listen(Number(process.env.WEAK_MODEL_PORT ?? 0), "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}/v1`);
});
