/**
 * What listens on a TCP port, read from the kernel (Linux /proc/net/tcp and tcp6), and whether a
 * port answers on this machine's other addresses: proof that a local service is reachable from
 * this machine only (bound to 127.0.0.1, not 0.0.0.0 or ::).
 */
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

const LISTEN = '0A';

/** The local addresses with a socket listening on `port` ("127.0.0.1", "0.0.0.0", "::", …); undefined without /proc/net. */
export function listeningAddresses(port: number): string[] | undefined {
	const tables = ['/proc/net/tcp', '/proc/net/tcp6'].filter((path) => existsSync(path));
	if (tables.length === 0) return undefined;
	const addresses: string[] = [];
	for (const table of tables) {
		for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
			const [, local, , state] = line.trim().split(/\s+/);
			if (!local || state !== LISTEN) continue;
			const [hexAddress, hexPort] = local.split(':');
			if (Number.parseInt(hexPort, 16) === port)
				addresses.push(hexAddress.length === 8 ? ipv4(hexAddress) : ipv6(hexAddress));
		}
	}
	return addresses;
}

/** The machine's addresses other than loopback (to show a service does not answer on them). */
export function externalAddresses(): string[] {
	return Object.values(networkInterfaces())
		.flat()
		.filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80:'))
		.map((a) => (a as { address: string }).address);
}

/** Whether a TCP connection to host:port is accepted (false when refused or not answered within 3 s). */
export async function accepts(host: string, port: number): Promise<boolean> {
	return await new Promise<boolean>((resolve) => {
		const socket = connect({ host, port });
		const done = (accepted: boolean) => {
			socket.destroy();
			resolve(accepted);
		};
		socket.setTimeout(3000, () => done(false));
		socket.once('connect', () => done(true));
		socket.once('error', () => done(false));
	});
}

/** /proc/net/tcp writes an IPv4 address as one little-endian 32-bit word in hex. */
function ipv4(hex: string): string {
	return [6, 4, 2, 0].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)).join('.');
}

/** /proc/net/tcp6 writes an IPv6 address as four little-endian 32-bit words in hex. */
function ipv6(hex: string): string {
	const bytes: number[] = [];
	for (let word = 0; word < 4; word++) {
		const chunk = hex.slice(word * 8, word * 8 + 8);
		for (const at of [6, 4, 2, 0]) bytes.push(Number.parseInt(chunk.slice(at, at + 2), 16));
	}
	const groups = [];
	for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
	const full = groups.join(':');
	if (full === '0:0:0:0:0:0:0:0') return '::';
	if (full === '0:0:0:0:0:0:0:1') return '::1';
	const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(full);
	if (mapped) {
		const [hi, lo] = [Number.parseInt(mapped[1], 16), Number.parseInt(mapped[2], 16)];
		return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
	}
	return full;
}
