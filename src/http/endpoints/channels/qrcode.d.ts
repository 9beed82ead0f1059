// The part of the `qrcode` package (https://github.com/soldair/node-qrcode, no types of its own) Clarion uses.
declare module 'qrcode' {
  interface ToStringOptions {
    type: 'svg';
    margin?: number;
    errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H';
  }
  const QRCode: { toString(text: string, options: ToStringOptions): Promise<string> };
  export default QRCode;
}
