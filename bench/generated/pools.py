"""What a household is drawn from: names, towns, shops and their goods, trades and their
jobs, clubs, pools, medicines, trips. Prices are ranges in pence; every list is long enough
that two folders seldom share a name, and the trades and shops a folder does not use give
its questions that no file answers."""

from __future__ import annotations

FIRST_NAMES = [
    "Aisha", "Alfie", "Amara", "Ben", "Bethan", "Callum", "Chloe", "Dev", "Eilidh", "Elliot",
    "Esme", "Farah", "Finn", "Freya", "Gareth", "Grace", "Hamza", "Hannah", "Imogen", "Isaac",
    "Jonah", "Kavya", "Keira", "Leon", "Lola", "Marcus", "Maya", "Nadia", "Niall", "Olivia",
    "Omar", "Phoebe", "Priya", "Rhys", "Rosa", "Sami", "Sienna", "Theo", "Tomasz", "Ursula",
    "Vikram", "Wren", "Yusuf", "Zara", "Orla", "Kit", "Martha", "Idris", "Ffion", "Lucas",
]
SURNAMES = [
    "Ashworth", "Bancroft", "Castell", "Dunmore", "Ellery", "Fairbairn", "Gilchrist", "Hallam",
    "Iredale", "Jessop", "Kavanagh", "Lindqvist", "Maddox", "Nakamura", "Okonjo", "Pemberton",
    "Quayle", "Rowntree", "Sandhu", "Thorne", "Underwood", "Varga", "Whitlock", "Yardley",
    "Achterberg", "Brennan", "Cartwright", "Delacroix", "Eastwood", "Fenwick", "Greaves",
    "Hollis", "Ingram", "Jarvis", "Kowalski", "Lockhart", "Mensah", "Norrington", "Ogilvy",
    "Petrakis", "Radcliffe", "Stainton", "Trelawney", "Vasquez", "Winslow", "Abernethy",
]
# One word each: the bank statement's payees share it ("Millbrook Co-op", "Millbrook Fuel").
TOWNS = [
    "Millbrook", "Stowbridge", "Harwick", "Elmsford", "Kettleby", "Ravensholt", "Oakhurst",
    "Thornbury", "Westcombe", "Hollowell", "Larkhill", "Marston", "Penhallow", "Redbourne",
    "Sandgate", "Tilbrook", "Ashcombe", "Brackwell", "Coldharbour", "Dunmere", "Fernley",
    "Greystone", "Hexley", "Lynmouth", "Northcote", "Pellbury", "Quarrington", "Rushmere",
]
STREETS = [
    "Wrenfield Lane", "Orchard Close", "Station Road", "Mill Street", "Beech Avenue",
    "Church Walk", "Kestrel Way", "Foundry Lane", "Victoria Terrace", "Linden Close",
    "Hawthorn Drive", "Canal Side", "Priory Road", "Willow Crescent", "Tanners Row",
]
POSTCODE_LETTERS = "ABDEGHJLNPQRSTUWXYZ"

# Shops a receipt comes from: kind -> (name templates, goods as (till text, low, high) in pence).
SHOPS: dict[str, tuple[list[str], list[tuple[str, int, int]]]] = {
    "grocer": (["Greenway Stores", "Hartley's Grocers", "Fresh & Co", "The Village Shop", "Parade Foods"], [
        ("MILK SEMI 2L", 115, 165), ("WHOLEMEAL LOAF", 95, 185), ("BANANAS", 80, 140),
        ("FREE RANGE EGGS 12", 220, 345), ("CHEDDAR 400G", 280, 420), ("BUTTER 250G", 185, 260),
        ("PASTA FUSILLI 500G", 70, 140), ("CHOPPED TOMATOES", 45, 90), ("GROUND COFFEE 227G", 310, 520),
        ("TEA BAGS 80", 150, 330), ("BASMATI RICE 1KG", 180, 320), ("CHICKEN THIGHS", 350, 560),
        ("GREEK YOGHURT", 120, 240), ("ORANGE JUICE 1L", 130, 230), ("PORRIDGE OATS", 90, 190),
        ("RED ONIONS", 60, 110), ("POTATOES 2.5KG", 140, 260), ("CARROTS 1KG", 55, 95),
    ]),
    "hardware": (["Keystone Hardware", "Tool Shed DIY", "Bolt & Hinge", "Corner Hardware"], [
        ("WOOD SCREWS 4X40", 349, 649), ("WOOD GLUE 250ML", 399, 699), ("MASKING TAPE", 199, 349),
        ("SANDPAPER ASSORTED", 299, 499), ("PAINT BRUSH 2IN", 249, 549), ("WHITE GLOSS 750ML", 1199, 1899),
        ("WALL PLUGS X100", 199, 399), ("LED BULB E27", 299, 599), ("EXTENSION LEAD 4G", 999, 1599),
        ("CABLE TIES X100", 199, 349), ("SILICONE SEALANT", 499, 899), ("BRASS HINGES PAIR", 349, 699),
    ]),
    "cafe": (["The Copper Kettle", "Bean & Leaf", "Crumbs Cafe", "The Old Bakehouse", "Tidewater Coffee"], [
        ("FLAT WHITE", 300, 385), ("LATTE", 310, 395), ("POT OF TEA", 240, 320), ("CROISSANT", 220, 320),
        ("FRUIT SCONE", 260, 360), ("HAM CHEESE TOASTIE", 595, 795), ("SOUP OF THE DAY", 550, 695),
        ("HOT CHOCOLATE", 320, 420), ("CARROT CAKE", 350, 450), ("BROWNIE", 280, 380),
    ]),
    "bakery": (["Rise Bakery", "The Flour Pot", "Crust & Crumb", "Daily Bread"], [
        ("SOURDOUGH LOAF", 380, 520), ("CINNAMON BUN", 250, 340), ("BAGUETTE", 160, 260),
        ("SAUSAGE ROLL", 210, 330), ("ECCLES CAKE", 190, 280), ("SEEDED ROLLS X4", 240, 360),
        ("LEMON TART", 320, 450), ("FOCACCIA", 350, 480),
    ]),
    "chemist": (["Wellcare Chemist", "Parkside Pharmacy", "Highfield Pharmacy"], [
        ("PARACETAMOL 16", 45, 95), ("PLASTERS ASSORTED", 199, 349), ("SUN CREAM SPF50", 599, 999),
        ("TOOTHPASTE", 150, 299), ("HAND CREAM", 299, 499), ("ANTIHISTAMINE 7", 199, 399),
        ("COUGH SYRUP", 499, 799), ("VITAMIN D", 349, 599),
    ]),
    "garden": (["Bramblecombe Nurseries", "Foxglove Garden Centre", "Greenacre Plants"], [
        ("COMPOST 50L", 599, 899), ("HORT GRIT 20KG", 549, 799), ("SEED POTATOES 2KG", 499, 699),
        ("ONION SETS", 199, 329), ("BAMBOO CANES X10", 599, 999), ("LAVENDER 2L", 699, 1099),
        ("TWINE", 249, 399), ("BIRD SEED 2KG", 699, 1099),
    ]),
}

# Trades an invoice comes from: trade -> (business templates, job lines as (text, qty range,
# unit price range in pence), what was found on the day, why it cost more).
TRADES: dict[str, dict] = {
    "plumber": {
        "business": ["{surname} Plumbing & Heating", "{town} Plumbing Services"],
        "lines": [("Replace kitchen mixer tap", (1, 1), (9500, 16500)), ("Isolation valves", (2, 4), (650, 1200)),
                  ("Copper pipe and fittings", (1, 1), (2400, 4800)), ("Labour (hours)", (3, 7), (4500, 6000))],
        "extra": ("Replace seized stopcock", (5500, 8500)),
        "reason": "the stopcock under the sink had seized and had to be replaced before the water could be turned off",
        "reason_key": "stopcock",
    },
    "electrician": {
        "business": ["{surname} Electrical", "Brightline Electrical"],
        "lines": [("Fit outdoor double socket", (1, 1), (8500, 14000)), ("Replace light fittings", (2, 5), (2500, 4500)),
                  ("Cable, clips and sundries", (1, 1), (1800, 3600)), ("Labour (hours)", (4, 8), (4000, 5500))],
        "extra": ("Rewire two failed circuits", (12000, 22000)),
        "reason": "two of the lighting circuits failed the insulation test and had to be rewired",
        "reason_key": "insulation test",
    },
    "roofer": {
        "business": ["{surname} Roofing", "Skyline Roofing"],
        "lines": [("Replace slipped slates", (6, 14), (1800, 3200)), ("Scaffold tower hire (days)", (2, 3), (4500, 7000)),
                  ("Lead flashing to chimney", (1, 1), (16000, 26000)), ("Labour (days)", (1, 3), (18000, 24000))],
        "extra": ("Replace rotten battens", (9000, 15000)),
        "reason": "the battens under the slipped slates were rotten and had to be replaced",
        "reason_key": "rotten",
    },
    "decorator": {
        "business": ["{surname} Decorating", "Fine Finish Decorators"],
        "lines": [("Paint living room walls and ceiling", (1, 1), (32000, 52000)), ("Prepare and fill walls", (1, 1), (8000, 14000)),
                  ("Paint and materials", (1, 1), (9500, 17000)), ("Gloss skirting and door frames", (1, 1), (9000, 15000))],
        "extra": ("Lining paper to ceiling", (11000, 18000)),
        "reason": "the ceiling plaster was cracked and needed lining paper before it could be painted",
        "reason_key": "lining paper",
    },
    "carpenter": {
        "business": ["{surname} Joinery", "Oak & Ash Carpentry"],
        "lines": [("Fit alcove shelves", (2, 2), (14000, 22000)), ("Hang internal doors", (2, 4), (6500, 9500)),
                  ("Timber and fixings", (1, 1), (6000, 12000)), ("Labour (days)", (1, 3), (17000, 23000))],
        "extra": ("Pack out uneven wall", (6000, 11000)),
        "reason": "the alcove wall was badly out of true and had to be packed out before the shelves would sit level",
        "reason_key": "out of true",
    },
    "gas engineer": {
        "business": ["{surname} Gas Services", "Hearthside Heating"],
        "lines": [("Annual boiler service", (1, 1), (7500, 11000)), ("Gas safety certificate", (1, 1), (5500, 8000)),
                  ("Replace pressure relief valve", (1, 1), (6500, 9500)), ("Magnetic filter clean", (1, 1), (3000, 5000))],
        "extra": ("Replace cracked flue seal", (7000, 12000)),
        "reason": "the seal on the flue was cracked, which is a safety issue, so it was replaced on the day",
        "reason_key": "flue",
    },
    "tree surgeon": {
        "business": ["{surname} Tree Care", "Greenbough Arboriculture"],
        "lines": [("Crown reduce oak tree", (1, 1), (38000, 65000)), ("Fell conifer", (1, 2), (18000, 30000)),
                  ("Grind stump", (1, 2), (9000, 15000)), ("Remove green waste", (1, 1), (8000, 14000))],
        "extra": ("Extra climber for dead wood", (12000, 20000)),
        "reason": "there was more dead wood in the crown than expected and a second climber was needed",
        "reason_key": "dead wood",
    },
    "tiler": {
        "business": ["{surname} Tiling", "Grout & Grid Tiling"],
        "lines": [("Tile bathroom walls (m2)", (8, 16), (3800, 5200)), ("Tile adhesive and grout", (1, 1), (6500, 11000)),
                  ("Remove old tiles", (1, 1), (15000, 26000)), ("Silicone and finishing", (1, 1), (3500, 6000))],
        "extra": ("Re-board damaged wall", (14000, 22000)),
        "reason": "the plasterboard behind the old tiles was damp and had to be replaced with tile backer board",
        "reason_key": "damp",
    },
}
# Services a folder never has a document about (besides the trades it did not use): what a
# question can ask of in the same shape as one that is answered.
ONLY_ASKED = ["window cleaner", "piano tuner", "chimney sweep", "gutter cleaner", "dog groomer",
              "driving instructor", "locksmith", "carpet cleaner", "pest controller", "upholsterer"]

CLUBS = ["Community Choir", "Tennis Club", "Swimming Club", "Chess Club", "Running Club",
         "Allotment Society", "Cricket Club", "Book Club", "Camera Club", "Rowing Club",
         "Bowls Club", "Orchestra", "Badminton Club", "Climbing Club"]
CLUB_ROLES = ["treasurer", "secretary", "chair", "membership secretary", "coach"]
OTHER_ROLES = [("landlord of number {n}", "landlord"), ("owner of the flat at number {n}", "owner"),
               ("caretaker at the primary school", "caretaker"), ("district councillor for our ward", "councillor")]

POOL_NAMES = ["{town} Leisure Centre", "Riverside Lido", "{surname} Park Pool", "Castle Baths",
              "Northgate Aquatics Centre", "Meadowbank Pool", "Old Mill Swim Club", "Harbour Lido",
              "Victoria Baths", "Brookside Pool"]
VENUES = ["St Mary's Church", "The Corn Exchange", "{town} Town Hall", "St Aldhelm's Church",
          "The Guildhall", "The Assembly Rooms", "Queen's Hall", "Priory Church"]
TRIP_PLACES = [("Hafod Outdoor Centre", "the Welsh hills"), ("Kielder Water", "Northumberland"),
               ("Whitemoor Field Centre", "the Peak District"), ("Brownsea Island", "Dorset"),
               ("Slapton Ley Field Centre", "Devon"), ("Glenmore Lodge", "the Cairngorms"),
               ("the Eden Project", "Cornwall"), ("Ironbridge Gorge", "Shropshire")]
HOLIDAY_PLACES = ["Pembrokeshire", "the Lake District", "the Isle of Skye", "Norfolk",
                  "the Yorkshire Dales", "Northumberland", "the Gower", "Anglesey", "Exmoor"]
MEDICINES = [("Amlodipine", "5 mg"), ("Metformin", "500 mg"), ("Atorvastatin", "20 mg"),
             ("Omeprazole", "20 mg"), ("Levothyroxine", "50 micrograms"), ("Ramipril", "2.5 mg"),
             ("Sertraline", "50 mg"), ("Lansoprazole", "15 mg"), ("Bisoprolol", "2.5 mg"),
             ("Simvastatin", "40 mg"), ("Folic acid", "5 mg"), ("Vitamin D3", "1,000 units")]
MED_TIMES = ["with breakfast", "at bedtime", "morning and evening", "with the evening meal",
             "30 minutes before breakfast", "at lunchtime"]
# Grandparents as the family calls them (a title that fits the name).
ELDERS = ["Grandma Joan", "Grandad Stan", "Nana Pat", "Grandpa Ray", "Granny Maureen", "Grandad Ken",
          "Nana Sheila", "Grandma Rita", "Grandpa Viktor", "Nani Asha", "Grandad Winston", "Oma Ilse"]
DOCTORS = ["Dr Okafor", "Dr Lindqvist", "Dr Brennan", "Dr Sandhu", "Dr Hallam", "Dr Petrakis"]
ENERGY_SUPPLIERS = ["Brightwater Energy", "Kestrel Power", "Northstar Energy", "Greenleaf Gas & Power"]
WATER_COMPANIES = ["Vale Water", "Severnside Water", "Chalkstream Water"]
EMPLOYERS = ["ACME LTD", "HALDEN & ROE", "NORTHGATE NHS TRUST", "BRIGHTSIDE SCHOOLS", "KESTREL LOGISTICS"]
SUPERMARKETS = ["TESCO STORES", "SAINSBURYS", "ALDI", "LIDL GB", "WAITROSE"]
# Payees that share the town's name on the statement, and what each row costs (pence).
TOWN_PAYEES = [("Co-op", (850, 6400), 7), ("Fuel", (3800, 7200), 4), ("Leisure Centre", (450, 1250), 3),
               ("Pharmacy", (399, 1899), 2), ("Bakery", (260, 1150), 3)]
OTHER_PAYEES = [("NETFLIX.COM", (1099, 1099)), ("COSTA COFFEE", (310, 890)), ("AMAZON MARKETPLACE", (699, 4599)),
                ("TRAINLINE", (1250, 6800)), ("BOOTS", (350, 2450)), ("SHELL", (3500, 6800))]
SAVINGS_POTS = ["Holiday", "New car", "Emergency fund", "Christmas", "Boiler", "Kitchen", "Wedding present"]
# A month's budget lines: (category, item, low, high) in pence.
BUDGET_ITEMS = [("Home", "Mortgage", 60000, 160000), ("Home", "Council tax", 11000, 26000),
                ("Home", "Energy", 9000, 24000), ("Home", "Water", 2500, 6000), ("Home", "Broadband", 2500, 5500),
                ("Food", "Groceries", 35000, 80000), ("Food", "Takeaways", 4000, 12000),
                ("Transport", "Fuel", 8000, 22000), ("Transport", "Car insurance", 3000, 9000),
                ("Family", "Swimming lessons", 2500, 6500), ("Family", "Pocket money", 2000, 6000),
                ("Leisure", "Gym", 2000, 6000), ("Leisure", "Streaming", 1000, 3500)]
CAR_MAKES = ["Skoda Octavia", "Toyota Yaris", "Ford Focus", "Kia Niro", "Vauxhall Astra", "Honda Jazz", "VW Golf"]
INSURERS = ["Harbourline Insurance", "Sentinel Direct", "Castleguard Motor", "Beacon Insure"]
DEPOSIT_SCHEMES = ["the Deposit Protection Service", "MyDeposits", "the Tenancy Deposit Scheme"]
