// A link's QR code, drawn by the page (vendor/qrcode.js): the server sends the link only, so a new
// game's five codes cost the table's process nothing on its broadcast path (segno took ~10 ms a
// code there, every other table's screens waiting on the interpreter lock meanwhile).
import qrcode from "./vendor/qrcode.js";

const drawn = new Map();   // url -> data: URI; a screen shows the same links on every redraw

/** The QR code of `url` (error correction M, a quiet zone of four modules) as an SVG data URI. */
export function qrPicture(url) {
  let uri = drawn.get(url);
  if (uri === undefined) {
    const code = qrcode(0, "M");
    code.addData(url, "Byte");
    code.make();
    uri = "data:image/svg+xml," + encodeURIComponent(code.createSvgTag({cellSize: 6, margin: 24, scalable: true}));
    if (drawn.size > 64) drawn.clear();
    drawn.set(url, uri);
  }
  return uri;
}
