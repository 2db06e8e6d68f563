/**
 * Token bookkeeping of the fake clinic API. Access tokens are JWT-shaped (base64url header, payload
 * with iat/exp/b_id, HMAC signature) but the server never trusts their content: every token is looked
 * up in a table, so "expire all issued tokens" is a flag flip and forged tokens are rejected.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** document / public: the API's own token endpoints; signIn: the sign-in (OIDC) provider. */
export type TokenFlow = 'document' | 'public' | 'signIn';

export interface TokenSubject {
	clientId: string;
	businessId: string;
	flow: TokenFlow;
}

export interface IssuedTokenPair {
	accessToken: string;
	refreshToken: string;
	expiresIn: number;
	refreshExpiresIn: number;
}

export type AccessCheck =
	| { valid: true; subject: TokenSubject | 'static' }
	| { valid: false; reason: 'missing' | 'unknown' | 'expired' };

interface TokenRecord {
	subject: TokenSubject;
	expiresAtMs: number;
	expired: boolean;
	/** Lifetimes this pair was issued with, reused on refresh. */
	accessSeconds: number;
	refreshSeconds: number;
}

/** Above this many tracked tokens, dead ones are dropped (they would be rejected either way). */
const PRUNE_ABOVE = 10_000;

export class TokenStore {
	private readonly signingKey = randomBytes(32);
	private readonly access = new Map<string, TokenRecord>();
	private readonly refresh = new Map<string, TokenRecord>();
	/** Access token → the refresh token issued with it (for the echo fault). */
	private readonly pairs = new Map<string, string>();

	constructor(
		private readonly staticToken: string,
		private readonly now: () => number = Date.now,
	) {}

	issue(subject: TokenSubject, accessSeconds: number, refreshSeconds: number): IssuedTokenPair {
		const nowMs = this.now();
		const accessToken = this.makeJwt(subject, nowMs, accessSeconds);
		const refreshToken = `rt.${randomBytes(24).toString('base64url')}`;
		const base = { subject, expired: false, accessSeconds, refreshSeconds };
		this.access.set(accessToken, { ...base, expiresAtMs: nowMs + accessSeconds * 1000 });
		this.refresh.set(refreshToken, { ...base, expiresAtMs: nowMs + refreshSeconds * 1000 });
		this.pairs.set(accessToken, refreshToken);
		this.prune();
		return {
			accessToken,
			refreshToken,
			expiresIn: accessSeconds,
			refreshExpiresIn: refreshSeconds,
		};
	}

	checkAccess(token: string | undefined): AccessCheck {
		if (token === undefined || token === '') return { valid: false, reason: 'missing' };
		if (token === this.staticToken) return { valid: true, subject: 'static' };
		const record = this.access.get(token);
		if (!record) return { valid: false, reason: 'unknown' };
		if (!this.isLive(record)) return { valid: false, reason: 'expired' };
		return { valid: true, subject: record.subject };
	}

	/** A new pair for a live refresh token, or undefined. With `rotate`, the used refresh token dies. */
	refreshPair(refreshToken: string, rotate: boolean): IssuedTokenPair | undefined {
		const record = this.refresh.get(refreshToken);
		if (!record || !this.isLive(record)) return undefined;
		if (rotate) record.expired = true;
		return this.issue(record.subject, record.accessSeconds, record.refreshSeconds);
	}

	/** The subject a refresh token was issued to (live or not), if this store issued it. */
	refreshTokenSubject(refreshToken: string): TokenSubject | undefined {
		return this.refresh.get(refreshToken)?.subject;
	}

	/** Whether a refresh token of this store is still usable. */
	refreshTokenLive(refreshToken: string): boolean {
		const record = this.refresh.get(refreshToken);
		return record !== undefined && this.isLive(record);
	}

	/** The subject of a live access token, if this store issued it. */
	accessTokenSubject(accessToken: string): TokenSubject | undefined {
		const check = this.checkAccess(accessToken);
		return check.valid && check.subject !== 'static' ? check.subject : undefined;
	}

	/** The refresh token issued with an access token, if this store issued it. */
	refreshTokenIssuedWith(accessToken: string): string | undefined {
		return this.pairs.get(accessToken);
	}

	expireAccessTokens(): void {
		for (const record of this.access.values()) record.expired = true;
	}

	expireRefreshTokens(): void {
		for (const record of this.refresh.values()) record.expired = true;
	}

	stats(): {
		accessIssued: number;
		accessLive: number;
		refreshIssued: number;
		refreshLive: number;
	} {
		const live = (map: Map<string, TokenRecord>) =>
			[...map.values()].filter((r) => this.isLive(r)).length;
		return {
			accessIssued: this.access.size,
			accessLive: live(this.access),
			refreshIssued: this.refresh.size,
			refreshLive: live(this.refresh),
		};
	}

	private isLive(record: TokenRecord): boolean {
		return !record.expired && this.now() < record.expiresAtMs;
	}

	private makeJwt(subject: TokenSubject, nowMs: number, lifetimeSeconds: number): string {
		const iat = Math.floor(nowMs / 1000);
		const header = base64urlJson({ alg: 'HS256', typ: 'JWT' });
		const payload = base64urlJson({
			iss: 'fake-clinic-api',
			sub: subject.clientId,
			b_id: subject.businessId,
			iat,
			exp: iat + lifetimeSeconds,
			jti: randomBytes(12).toString('base64url'),
		});
		const signature = createHmac('sha256', this.signingKey)
			.update(`${header}.${payload}`)
			.digest('base64url');
		return `${header}.${payload}.${signature}`;
	}

	private prune(): void {
		for (const map of [this.access, this.refresh]) {
			if (map.size <= PRUNE_ABOVE) continue;
			for (const [token, record] of map) if (!this.isLive(record)) map.delete(token);
		}
	}
}

/** Reads the payload of a JWT-shaped token (no verification): for tests. */
export function decodeJwtPayload(token: string): Record<string, unknown> {
	const parts = token.split('.');
	if (parts.length !== 3) throw new Error('not a JWT-shaped token');
	return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

function base64urlJson(value: unknown): string {
	return Buffer.from(JSON.stringify(value)).toString('base64url');
}
