/**
 * A stand-in for an OpenAI-compatible chat model (POST /v1/chat/completions), so an n8n AI Agent can
 * run without a model provider: asked with tools and no tool answer yet, it calls the first tool
 * once, with the arguments its schema requires (values from `toolArguments`); once a tool has
 * answered, it replies with text that quotes the tool's answer. Streamed (SSE) and plain answers
 * both. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: unknown[];
}

interface ChatTool {
	type: string;
	function: {
		name: string;
		parameters?: { properties?: Record<string, unknown>; required?: string[] };
	};
}

export interface ChatRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
}

export interface FakeChatModel {
	/** The base URL for an OpenAI credential ("…/v1"). */
	url: string;
	requests: ChatRequest[];
	/** What the tools answered, in order (the `tool` messages the model was sent). */
	toolAnswers(): string[];
	close(): Promise<void>;
}

export async function startFakeChatModel(
	toolArguments: Record<string, string>,
): Promise<FakeChatModel> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((req, res) => {
		void handle(req, res).catch((error: unknown) => {
			res
				.writeHead(500, { 'content-type': 'application/json' })
				.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
			res
				.writeHead(404, { 'content-type': 'application/json' })
				.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
			return;
		}
		const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
		requests.push(request);
		const answered = request.messages.some((m) => m.role === 'tool');
		const tool = request.tools?.[0];
		const message =
			!answered && tool
				? {
						role: 'assistant',
						content: null,
						tool_calls: [
							{
								id: `call_${requests.length}`,
								type: 'function',
								function: {
									name: tool.function.name,
									arguments: JSON.stringify(argumentsFor(tool)),
								},
							},
						],
					}
				: {
						role: 'assistant',
						content: `The tool answered: ${lastToolAnswer(request).slice(0, 500)}`,
					};
		const finish = message.tool_calls ? 'tool_calls' : 'stop';
		const base = {
			id: `chatcmpl-${requests.length}`,
			created: Math.floor(Date.now() / 1000),
			model: request.model ?? 'fake',
		};
		if (request.stream) {
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
			const delta = message.tool_calls
				? {
						role: 'assistant',
						tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
					}
				: { role: 'assistant', content: message.content };
			res.write(
				`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
			);
			res.write(
				`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: USAGE })}\n\n`,
			);
			res.end('data: [DONE]\n\n');
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' }).end(
			JSON.stringify({
				...base,
				object: 'chat.completion',
				choices: [{ index: 0, message, finish_reason: finish }],
				usage: USAGE,
			}),
		);
	}

	function argumentsFor(tool: ChatTool): Record<string, string> {
		const parameters = tool.function.parameters ?? {};
		const names = new Set([
			...(parameters.required ?? []),
			...Object.keys(parameters.properties ?? {}),
		]);
		return Object.fromEntries([...names].map((name) => [name, toolArguments[name] ?? 'unknown']));
	}

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		toolAnswers: () =>
			requests
				.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content)))
				.filter((v, i, all) => all.indexOf(v) === i),
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const USAGE = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

function lastToolAnswer(request: ChatRequest): string {
	const tool = [...request.messages].reverse().find((m) => m.role === 'tool');
	return tool ? textOf(tool.content) : '';
}

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((part) =>
				typeof part === 'object' && part && 'text' in part
					? String((part as { text: unknown }).text)
					: '',
			)
			.join('');
	return JSON.stringify(content ?? '');
}
