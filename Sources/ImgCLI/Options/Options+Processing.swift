import ImgCore

extension OptionCatalog {
    static let processing = OptionGroup(title: "Processing", options: [
        Options.resize,
        Options.upscale,
        Options.crop,
        Options.round,
        Options.circle,
        Options.blur,
        Options.overlay,
        Options.grayscale,
        Options.rotate,
        Options.flip,
        Options.flop,
        Options.process,
    ], manIntro: #"""
        Processing options run in the order they are given on the command line,
        after the EXIF orientation has been applied.
        Each has the same meaning as the step of the same name in a
        .B \-p
        chain (see
        .BR "PROCESSING CHAINS" ).
        By default no processing is done.
        """#)
}

extension Options {
    static let resize = Option<String>("resize", value: "WxH[:MODE]", parser: .text, for: .fetchLike, step: true,
                         help: "resize to the box WxH (200: 200x200); MODE fit, fill, exact, cover, pad[=COLOR], upscale; WxH> WxH< WxH! WxH^ N% N%xM%",
                         man: #"""
            Resize to the box
            .IR W \(mu H
            pixels.
            .B fit
            (the default) keeps the whole image inside the box and never enlarges it
            unless
            .B \-\-upscale
            or the mode
            .B upscale
            is given
            .RB ( 200:upscale ,
            .BR 200x200:fit:upscale :
            the same as
            .BR "\-\-resize 200 \-\-upscale" ;
            it applies to
            .B fit
            only, and is refused with another mode or a size in percent);
            .B fill
            covers the box and crops the centre;
            .B exact
            ignores the aspect ratio;
            .B pad
            fits the whole image in the box (enlarging it if need be) and centres it on a
            .IR W \(mu H
            canvas of white, or of
            .I COLOR
            with
            .BI pad= COLOR
            (#rgb, #rrggbb, #rrggbbaa or a name such as
            .BR black ;
            a grey image gets the colour's grey, and a colour that is not opaque, such as
            .BR transparent ,
            gives an opaque image an alpha band): img2dataset's
            .B border
            mode.
            .BR fill ,
            .B exact
            and
            .B pad
            always give exactly
            .IR W \(mu H ,
            even from a smaller source.
            .IB W x
            and
            .BI x H
            fix one side and scale the other
            .RB ( fit ).
            A single number
            .I W
            is the box
            .IR W \(mu W :
            .B \-\-resize 200
            fits the image in 200\(mu200.
            JPEG and WebP are shrunk while they are loaded.
            .IP
            The size may also be spelled as vipsthumbnail and ImageMagick spell it
            (then without a
            .IR MODE ,
            or with the one it already means).
            For a 290\(mu442 image:
            .RS
            .TP 14
            .IB W x H >
            shrink only: the same as
            .IB W x H
            (fit);
            .B 200x200>
            gives 131\(mu200, and an image already inside the box is left as it is.
            .TP
            .IB W x H <
            enlarge only: an image inside the box grows to fit it, a larger one is left
            as it is;
            .B 1000x1000<
            gives 656\(mu1000.
            .TP
            .IB W x H !
            exact (ignore the aspect ratio):
            .B 100x100!\&
            gives 100\(mu100.
            .TP
            .IB W x H ^
            cover the box without cropping: the smaller side reaches the box (enlarging
            if need be), the other follows the aspect ratio;
            .B 100x100^
            gives 100\(mu152.
            Also spelled
            .IB W x H :cover\fR.
            .TP
            .IB N %
            scale both sides by
            .I N
            percent (rounded to whole pixels, over 0 to 10000%);
            .B 50%
            gives 145\(mu221.
            .TP
            .IB N % x M %
            scale the width by
            .I N
            and the height by
            .I M
            percent;
            .B 50%x25%
            gives 145\(mu111.
            .RE
            .IP
            Quote
            .BR > ,
            .B <
            and
            .B !\&
            for the shell.
            Equal results have one variant key:
            .B 200x200>
            is
            .BR resize(200x200,fit) ,
            .B 50%x50%
            is
            .BR resize(50%) .
            """#)
    static let upscale = Flag("upscale", for: .fetchLike, help: "let --resize fit enlarge small images",
                         man: #"""
            Let
            .B \-\-resize
            .B fit
            enlarge images smaller than the box.
            Where it would do nothing it is a usage error (exit 2): without
            .BR \-\-resize ,
            and with a resize that enlarges as it says
            .RB ( fill ,
            .BR cover ,
            .BR exact ,
            .BR pad ,
            a percentage, or the suffix
            .BR ! ,
            .B ^
            or
            .BR < ).
            Default: off.
            """#)
    static let crop = Option<String>("crop", value: "WxH[:ANCHOR]", parser: .text, for: .fetchLike, step: true,
                         help: "crop to WxH; ANCHOR centre, attention or entropy",
                         man: #"""
            Crop to
            .IR W \(mu H
            (at most the image's size), keeping the
            .B centre
            (the default; also spelled
            .BR center ),
            the most
            .B attention
            grabbing area, or the area of highest
            .BR entropy .
            All frames of an animation are cut at the same place, chosen on the first
            frame.
            """#)
    static let round = Option<String>("round", value: "RADIUS", parser: .text, for: .fetchLike, step: true,
                         help: "round the corners (pixels, or N% of the short side)",
                         man: #"""
            Round the corners with a radius of
            .I RADIUS
            pixels, or
            .IB N %
            of the shorter side (0 to 50%).
            The corners become transparent, or the
            .B \-\-background
            colour in formats without alpha.
            """#)
    static let circle = Flag("circle", for: .fetchLike, step: true, help: "mask a circle in the centred square",
                         man: #"""
            Crop the centred square and mask a circle inside it; outside it the image is
            transparent (or the background colour).
            """#)
    static let blur = Option<String>("blur", value: "SIGMA", parser: .text, for: .fetchLike, step: true, help: "Gaussian blur of SIGMA pixels",
                         man: #"""
            Gaussian blur with standard deviation
            .I SIGMA
            pixels (greater than 0, at most 1000).
            From a
            .I SIGMA
            of 10 the blur is libvips' approximate one: many times faster on large
            images and at most two levels (of 255) off the exact blur.
            """#)
    static let overlay = Option<String>("overlay", value: "COLOR[:OPACITY]", parser: .text, for: .fetchLike, step: true,
                         help: "blend a colour over the image (opacity 0.5)",
                         man: #"""
            Blend a solid colour over the image.
            .I OPACITY
            goes from 0 (no change) to 1 (solid colour); default 0.5.
            An alpha component in
            .I COLOR
            multiplies it.
            See
            .B COLOURS
            for
            .IR COLOR .
            """#)
    static let grayscale = Flag("grayscale", for: .fetchLike, step: true, help: "convert to shades of grey",
                         man: #"""
            Convert to shades of grey.
            """#)
    static let rotate = Option<String>("rotate", value: "DEGREES", parser: .text, for: .fetchLike, step: true,
                         help: "rotate clockwise by a multiple of 90 (-90 turns anticlockwise)",
                         man: #"""
            Rotate clockwise by
            .IR DEGREES ,
            any multiple of 90; negative values turn anticlockwise
            .RB ( \-90
            is
            .BR 270 ,
            .B \-180
            is
            .BR 180 ,
            .B \-270
            is
            .BR 90 ;
            one variant key for each pair), and 0 or 360 leave the image as it is.
            """#)
    static let flip = Flag("flip", for: .fetchLike, step: true, help: "mirror top to bottom",
                         man: #"""
            Mirror top to bottom (ImageMagick's
            .BR \-flip ).
            """#)
    static let flop = Flag("flop", for: .fetchLike, step: true, help: "mirror left to right",
                         man: #"""
            Mirror left to right (ImageMagick's
            .BR \-flop ).
            """#)
    static let process = Option<String>("process", short: "p", value: "CHAIN", parser: .text, for: .fetchLike, step: true,
                         help: "apply a chain: 'resize(200x200,fill)|>round(12)'",
                         man: #"""
            Apply the steps of
            .I CHAIN
            (see
            .BR "PROCESSING CHAINS" ),
            for example
            .BR "\(aqresize(200x200,fill)|>round(12)|>blur(2)\(aq" .
            It may be combined with the options above; all steps run in command-line
            order.
            """#)
}
