/** The request records tests read: one per non-admin request, kept in a live, bounded array. */
import type { IncomingMessage } from 'node:http';

import type { RecordedRequest } from './types';

/** A string matches a path it starts; a RegExp is tested against the decoded pathname. */
export function pathMatches(pattern: string | RegExp, pathname: string): boolean {
	if (typeof pattern === 'string') return pathname.startsWith(pattern);
	pattern.lastIndex = 0;
	return pattern.test(pathname);
}

/** The records of `requests` for a path (and method, when given). */
export function requestsTo(
	requests: readonly RecordedRequest[],
	path: string | RegExp,
	method?: string,
): RecordedRequest[] {
	const wanted = method?.toUpperCase();
	return requests.filter((r) => (!wanted || r.method === wanted) && pathMatches(path, r.pathname));
}

/** Adds the record of a request to `requests` (dropping the oldest beyond `maxRecords`) and returns it. */
export function recordRequest(
	requests: RecordedRequest[],
	maxRecords: number,
	id: number,
	request: {
		req: IncomingMessage;
		method: string;
		url: string;
		rawPath: string;
		query: URLSearchParams;
	},
): RecordedRequest {
	const { req, method, url, rawPath, query } = request;
	let pathname = rawPath;
	try {
		pathname = decodeURIComponent(rawPath);
	} catch {
		// keep raw: invalid escape
	}
	const queryObject: Record<string, string | string[]> = {};
	for (const [key, value] of query) {
		const existing = queryObject[key];
		queryObject[key] =
			existing === undefined
				? value
				: Array.isArray(existing)
					? [...existing, value]
					: [existing, value];
	}
	const record: RecordedRequest = {
		id,
		time: Date.now(),
		method,
		url,
		path: rawPath,
		pathname,
		query: queryObject,
		headers: { ...req.headers },
		body: undefined,
		bodyLength: 0,
	};
	requests.push(record);
	if (requests.length > maxRecords) requests.splice(0, requests.length - maxRecords);
	return record;
}
