"""Lists under headings (packing, shopping, kit): the answer is the items, some of them
under one heading only, never a sum or a count."""

from __future__ import annotations

from bench.generated import pools
from bench.generated.core import GenFile, Household, date_key, date_style, date_text, listed, say, slug
from bench.generated.layouts import LAYOUTS

PACKING = {
    "Clothes": ["Walking boots", "Waterproof jackets", "Fleeces", "Swimming costumes", "Sun hats", "Pyjamas",
                "Wellies", "Thermal socks"],
    "Washbag": ["Toothbrushes", "Sun cream", "Insect repellent", "Plasters", "Hay fever tablets", "Travel wash"],
    "For the car": ["Phone chargers", "Travel sweets", "Car sick bags", "Cool box", "Road atlas", "Picnic blanket"],
    "For the kids": ["Colouring books", "Travel Scrabble", "Night light", "Bucket and spade", "Binoculars",
                     "Headphones"],
    "Kitchen box": ["Tea bags", "Cafetiere", "Tea towels", "Sharp knife", "Bin bags", "Matches"],
}
SHOPPING = {
    "Butcher": ["Sausages for the barbecue", "Chicken drumsticks", "Burgers x12", "Bacon"],
    "Greengrocer": ["Strawberries", "Watermelon", "Cherry tomatoes", "Lettuce", "Corn on the cob"],
    "Supermarket": ["Paper plates", "Crisps", "Lemonade", "Burger buns", "Ice lollies", "Napkins"],
    "Party shop": ["Balloons", "Candles", "Party bags", "Bunting", "Banner"],
    "Chemist": ["Antihistamine", "Sun cream", "Plasters", "Wasp sting spray"],
}
ACTIVITIES = ["football camp", "Scout camp", "swimming gala", "sailing course", "netball tournament",
              "cricket camp", "drama summer school"]
KIT = {
    "To wear": ["Shin pads", "Trainers", "Sun hat", "Tracksuit bottoms", "Club T-shirt", "Wetsuit",
                "Waterproof jacket"],
    "In the bag": ["Packed lunch", "Water bottle", "Towel", "Change of socks", "Sun cream", "Snack bar",
                   "Named hoodie"],
    "Do not bring": ["Mobile phone", "Money", "Jewellery", "Energy drinks", "Sweets with nuts"],
}


def _sections(rng, catalogue: dict[str, list[str]], count: int) -> dict[str, list[str]]:
    headings = rng.sample(sorted(catalogue), count)
    return {h: rng.sample(catalogue[h], rng.randint(3, min(5, len(catalogue[h])))) for h in headings}


def _markup(title: str, intro: str, sections: dict[str, list[str]], heading: str = "## ", bullet: str = "- ") -> str:
    blocks = [f"# {title}", intro]
    for name, items in sections.items():
        head = f"**{name}**" if heading == "**" else f"{heading}{name}"
        blocks += [head, "\n".join(f"{bullet}{item}" for item in items)]
    return "\n\n".join(blocks) + "\n"


def _some(rng, items: list[str], least: int = 2, most: int = 4) -> list[str]:
    return rng.sample(items, min(len(items), rng.randint(least, most)))


def packing_list(house: Household) -> GenFile:
    rng = house.rng
    layout = house.layout("list")
    place = house.pick(pools.HOLIDAY_PLACES)
    start = house.day(rng.randint(4, 9))
    sections = _sections(rng, PACKING, rng.randint(3, 4))
    if "For the car" not in sections:
        sections["For the car"] = rng.sample(PACKING["For the car"], 3)
    intro = f"For the week in {place}, leaving on {date_text(start, 'long')}. Tick things off as they go in the car."
    text = _markup(f"Packing list: {place}", intro, sections, layout["heading"], layout["bullet"])
    file = GenFile(f"packing-{slug(place)}.md", text, layout)
    everything = [item for items in sections.values() for item in items]
    keys = [rng.choice(items) for items in list(sections.values())[:4]]
    file.ask(say(rng, ["What should I pack for {place}?", "what do we need to pack for the {place} trip",
                       "What's on the packing list for {place}?"], place=place),
             "list", "list", f"{listed(everything)}.", keys[:4])
    car = sections["For the car"]
    file.ask(say(rng, ["What do we need to take in the car for {place}?", "what goes in the car for the {place} holiday"],
                 place=place),
             "list", "list", f"{listed(car)}.", _some(rng, car))
    return file


def shopping_list(house: Household) -> GenFile:
    rng = house.rng
    child = rng.choice(house.children).first
    sections = _sections(rng, SHOPPING, rng.randint(3, 4))
    text = _markup(f"Shopping for {child}'s birthday party", "Party on Saturday afternoon; about 15 children "
                   "and their parents. Split by where we buy it.", sections)
    file = GenFile(f"shopping-{slug(child)}-party.docx", text, LAYOUTS["list"][0])
    shop = rng.choice(list(sections)[1:])
    file.ask(say(rng, ["What do I need from the {shop} for {child}'s party?", "what's on the {shop} list",
                       "For the party, what are we getting at the {shop}?"], shop=shop.lower(), child=child),
             "list", "list", f"{listed(sections[shop])}.", _some(rng, sections[shop]))
    return file


def kit_list(house: Household) -> GenFile:
    rng = house.rng
    child = rng.choice(house.children).first
    activity = rng.choice(ACTIVITIES)
    style = date_style(rng)
    start = house.day(rng.randint(5, 8))
    venue = f"{house.stranger().surname} Park" if rng.random() < 0.5 else f"{house.town} Sports Centre"
    sections = {h: rng.sample(KIT[h], rng.randint(3, 5)) for h in KIT}
    intro = f"The {activity} runs from {date_text(start, style)} for five days at {venue}, 9am to 3.30pm."
    text = _markup(f"{child}'s {activity} kit list", intro, sections)
    file = GenFile(f"{slug(child)}-{slug(activity)}-kit.odt", text, LAYOUTS["list"][0])
    bring = sections["To wear"] + sections["In the bag"]
    file.ask(say(rng, ["What does {child} need for {activity}?", "what kit does {child} need for the {activity}",
                       "What should {child} bring to {activity}?"], child=child, activity=activity),
             "list", "list", f"{listed(bring)}.", _some(rng, sections["To wear"], 1, 2) + _some(rng, sections["In the bag"], 1, 2))
    file.ask(say(rng, ["What is {child} not allowed to take to {activity}?", "what shouldn't {child} bring to the {activity}"],
                 child=child, activity=activity),
             "list", "list", f"{listed(sections['Do not bring'])}.", _some(rng, sections["Do not bring"]))
    file.ask(say(rng, ["When does {child}'s {activity} start?", "what date does the {activity} begin"],
                 child=child, activity=activity),
             "factoid", "date", f"On {date_text(start, style)}, at {venue}.", [date_key(start, style)])
    return file

