import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';

/**
 * A private CA and a `localhost` leaf certificate for the fake APNs/FCM servers.
 *
 * Clarion's delivery clients must be pointed at the fakes only through their normal configuration, so they have to
 * trust the fakes' certificate the standard way: NODE_EXTRA_CA_CERTS=<caCertPath>. Node reads that variable once, at
 * process start, so the CA must exist on disk before test workers fork; vitest.config.ts calls ensureFakeTls().
 *
 * Why node-forge and not selfsigned/@peculiar/x509: both of those are async-only (WebCrypto), and this function is
 * called synchronously from configuration code. Keys come from node:crypto; forge only builds and signs the X.509.
 */
export interface FakeTls {
  /** PEM file holding the CA certificate: the value for NODE_EXTRA_CA_CERTS. */
  caCertPath: string;
  caPem: string;
  /** Leaf certificate for localhost, 127.0.0.1 and ::1, signed by the CA. */
  certPem: string;
  keyPem: string;
}

const CA_FILE = 'ca.pem';
const CERT_FILE = 'cert.pem';
const KEY_FILE = 'key.pem';
/** Five years: long enough that a developer's cache never expires mid-project, renewed automatically below. */
const VALIDITY_MS = 5 * 365 * 24 * 3600 * 1000;
/** Regenerate when less than a day is left, so a test run never crosses the expiry. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;
const LEAF_HOSTS = ['localhost'] as const;
const LEAF_IPS = ['127.0.0.1', '::1'] as const;

export function defaultFakeTlsDir(): string {
  const fromEnv = process.env.CLARION_FAKE_TLS_DIR;
  if (fromEnv) return resolve(fromEnv);
  // tools/fakes/fake-tls.ts → repository root.
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../.cache/fake-tls');
}

/**
 * Returns the CA and leaf certificate in `dir`, creating them if missing or no longer valid.
 *
 * Safe when several processes race (vitest config, workers, the launcher): a complete set is written into a private
 * temporary directory and moved into place with one rename(2), which fails if another process got there first; the
 * loser then reads the winner's files. Readers therefore never see a half-written or mismatched set.
 */
export function ensureFakeTls(dir: string = defaultFakeTlsDir()): FakeTls {
  const target = resolve(dir);
  const existing = readValid(target);
  if (existing) return existing;

  mkdirSync(dirname(target), { recursive: true });
  const staging = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging); // the certificates are public; only key.pem is owner-only
  const created = createCertificates();
  writeFileSync(join(staging, CA_FILE), created.caPem);
  writeFileSync(join(staging, CERT_FILE), created.certPem);
  writeFileSync(join(staging, KEY_FILE), created.keyPem, { mode: 0o600 });

  // Present but invalid (expired, corrupt)? Check again right before moving it aside, so a valid set that a racing
  // process installed since our first look is never replaced; if another process already moved it, that is fine.
  if (existsSync(target) && !readValid(target)) {
    const stale = `${target}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(target, stale);
      rmSync(stale, { recursive: true, force: true });
    } catch {
      /* someone else replaced it first */
    }
  }
  try {
    renameSync(staging, target);
  } catch {
    // Lost the race: another process installed a complete set in the meantime.
    rmSync(staging, { recursive: true, force: true });
    const winner = readValid(target);
    if (!winner) throw new Error(`fake TLS: could not create or read certificates in ${target}`);
    return winner;
  }
  return { caCertPath: join(target, CA_FILE), ...created };
}

/**
 * The value for NODE_EXTRA_CA_CERTS that trusts the fakes' CA as well as what `current` (the variable as the
 * process got it) already trusts. The variable names one file, and a machine may need it for its own CAs (a TLS
 * proxy in front of the npm registry, for the child processes some tests run npm in), so replacing it would take
 * that trust away: both go into one bundle beside the CA.
 */
export function extraCaCertsWith(tls: FakeTls, current: string | undefined): string {
  if (!current || resolve(current) === tls.caCertPath || !existsSync(current)) return tls.caCertPath;
  const bundle = `${readFileSync(current, 'utf8').trimEnd()}\n${tls.caPem}`;
  const path = join(dirname(tls.caCertPath), 'extra-ca-bundle.pem');
  if (existsSync(path) && readFileSync(path, 'utf8') === bundle) return path;
  // Written aside and renamed into place, so a process reading it never sees half a bundle.
  const staging = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(staging, bundle);
  renameSync(staging, path);
  return path;
}

/** The files in `dir` if they form a usable set: leaf signed by the CA, key matching, hosts covered, not expiring. */
function readValid(dir: string): FakeTls | null {
  try {
    const caPem = readFileSync(join(dir, CA_FILE), 'utf8');
    const certPem = readFileSync(join(dir, CERT_FILE), 'utf8');
    const keyPem = readFileSync(join(dir, KEY_FILE), 'utf8');
    const ca = new X509Certificate(caPem);
    const leaf = new X509Certificate(certPem);
    const now = Date.now();
    const usable =
      ca.ca &&
      leaf.verify(ca.publicKey) &&
      leaf.checkPrivateKey(createPrivateKey(keyPem)) &&
      Date.parse(leaf.validFrom) <= now &&
      Date.parse(leaf.validTo) - now > RENEW_BEFORE_MS &&
      Date.parse(ca.validTo) - now > RENEW_BEFORE_MS &&
      LEAF_HOSTS.every((host) => leaf.checkHost(host) !== undefined) &&
      LEAF_IPS.every((ip) => leaf.checkIP(ip) !== undefined);
    return usable ? { caCertPath: join(dir, CA_FILE), caPem, certPem, keyPem } : null;
  } catch {
    return null;
  }
}

function createCertificates(): Omit<FakeTls, 'caCertPath'> {
  const caKeys = rsaKeyPair();
  const leafKeys = rsaKeyPair();
  const notBefore = new Date(Date.now() - 3600 * 1000); // tolerate a little clock skew between processes
  const notAfter = new Date(notBefore.getTime() + VALIDITY_MS);

  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serialNumber();
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caName = [
    { name: 'commonName', value: 'Clarion fake push services CA (tests only)' },
    { name: 'organizationName', value: 'Clarion tests' },
  ];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const leaf = forge.pki.createCertificate();
  leaf.publicKey = leafKeys.publicKey;
  leaf.serialNumber = serialNumber();
  leaf.validity.notBefore = notBefore;
  leaf.validity.notAfter = notAfter;
  leaf.setSubject([{ name: 'commonName', value: 'localhost' }]);
  leaf.setIssuer(caName);
  leaf.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...LEAF_HOSTS.map((value) => ({ type: 2, value })), ...LEAF_IPS.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());

  // The CA private key is deliberately not kept: a CA trusted through NODE_EXTRA_CA_CERTS whose key lies in a cache
  // directory could sign a certificate for any host. Renewal makes a new CA instead.
  return {
    caPem: forge.pki.certificateToPem(ca),
    certPem: forge.pki.certificateToPem(leaf),
    keyPem: leafKeys.pkcs8Pem,
  };
}

function rsaKeyPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pkcs8Pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    pkcs8Pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Positive 16-byte serial (RFC 5280 §4.1.2.2: unique per CA, at most 20 octets, not negative). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}
