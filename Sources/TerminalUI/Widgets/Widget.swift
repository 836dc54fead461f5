/// Something that draws itself into an area of a buffer with a theme's palette.
///
/// Widgets never touch a terminal and never draw outside `area`; they are plain values the
/// app's pure `view` builds each frame.
public protocol Widget {
    func render(in area: Rect, buffer: inout Buffer, palette: Palette)
}
