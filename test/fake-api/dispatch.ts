/**
 * Dispatch: the routing table (every route module, in matching order) and the Router that matches
 * a method and raw path to a route, with percent-decoded path parameters.
 */
import { appointmentRoutes } from './routes/appointment';
import { authRoutes } from './routes/auth';
import { businessRoutes } from './routes/business';
import { doctorRoutes } from './routes/doctor';
import { ehrReceiverRoutes } from './routes/ehrReceiver';
import { medLinkRoutes } from './routes/medLink';
import { messageGatewayRoutes } from './routes/messageGateway';
import { patientRoutes } from './routes/patient';
import { prescriptionRoutes } from './routes/prescription';
import { signInRoutes } from './routes/signIn';
import { templateRoutes } from './routes/template';
import { transcriptionRoutes } from './routes/transcription';
import { sessionDocumentRoutes } from './routes/transcription/sessionDocuments';
import { sessionRoutes } from './routes/transcription/sessionRoutes';
import { webhookRoutes } from './routes/webhooks';
import type { ErrorStyle, RouteDefinition } from './types';

/** Built-in route modules, in matching order. Later work appends storage, results, webhooks. */
export const ROUTE_MODULES: ReadonlyArray<readonly RouteDefinition[]> = [
	authRoutes,
	doctorRoutes,
	businessRoutes,
	webhookRoutes,
	transcriptionRoutes,
	sessionRoutes,
	sessionDocumentRoutes,
	templateRoutes,
	ehrReceiverRoutes,
	prescriptionRoutes,
	patientRoutes,
	appointmentRoutes,
	messageGatewayRoutes,
	signInRoutes,
	medLinkRoutes,
];

export type RouteMatch =
	| { kind: 'route'; route: RouteDefinition; params: Record<string, string> }
	| { kind: 'method-not-allowed'; allowed: string[]; errorStyle: ErrorStyle }
	| { kind: 'bad-path'; errorStyle: ErrorStyle }
	| { kind: 'not-found' };

interface CompiledRoute {
	route: RouteDefinition;
	segments: Array<{ literal: string } | { param: string }>;
}

export class Router {
	private readonly compiled: CompiledRoute[];

	constructor(routes: readonly RouteDefinition[]) {
		this.compiled = routes.map((route) => ({
			route,
			segments: route.pattern
				.split('/')
				.map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s })),
		}));
	}

	match(method: string, rawPath: string): RouteMatch {
		const raw = rawPath.split('/');
		const allowed: string[] = [];
		let otherMethodStyle: ErrorStyle | undefined;
		for (const { route, segments } of this.compiled) {
			const params = matchSegments(segments, raw);
			if (params === undefined) continue;
			if (params === null) return { kind: 'bad-path', errorStyle: route.errorStyle };
			if (route.method === method) return { kind: 'route', route, params };
			allowed.push(route.method);
			otherMethodStyle ??= route.errorStyle;
		}
		if (otherMethodStyle)
			return {
				kind: 'method-not-allowed',
				allowed: [...new Set(allowed)],
				errorStyle: otherMethodStyle,
			};
		return { kind: 'not-found' };
	}
}

/** Params when the raw segments match; undefined when not; null when a parameter has a bad escape. */
function matchSegments(
	segments: CompiledRoute['segments'],
	raw: string[],
): Record<string, string> | undefined | null {
	if (segments.length !== raw.length) return undefined;
	const params: Record<string, string> = {};
	for (let i = 0; i < segments.length; i++) {
		const segment = segments[i];
		if ('literal' in segment) {
			if (segment.literal !== raw[i]) return undefined;
		} else {
			if (raw[i] === '') return undefined;
			try {
				params[segment.param] = decodeURIComponent(raw[i]);
			} catch {
				return null;
			}
		}
	}
	return params;
}
