export declare const MINIMUM_NODE: string;
export declare function unsupportedNodeMessage(version: string): string | null;
